import Foundation

/// The figures of one run, printed as a table and written as JSON.
struct Report {
    struct Row {
        var group: String
        var name: String
        var value: Double
        var unit: String
        var baseline: Double?
        /// How the figure is judged: at most or at least this (for ratios, against the baseline).
        var target: Target?
    }

    enum Target {
        case atMost(Double)
        case ratioAtLeast(Double)
        case ratioAtMost(Double)

        var description: String {
            switch self {
            case .atMost(let limit): "≤ \(format(limit))"
            case .ratioAtLeast(let ratio): "≥ \(format(ratio))×"
            case .ratioAtMost(let ratio): "≤ \(format(ratio))×"
            }
        }
    }

    var machine: String
    var rows: [Row] = []
    /// Each size's query matrix.
    var queryMatrices: [(size: String, cells: [QueryMatrix.Cell])] = []

    mutating func add(_ group: String, _ name: String, _ value: Double, _ unit: String, baseline: Double? = nil, target: Target? = nil) {
        rows.append(Row(group: group, name: name, value: value, unit: unit, baseline: baseline, target: target))
        FileHandle.standardError.write(Data("  \(group) \(name): \(format(value)) \(unit)\n".utf8))
    }

    static func ratio(_ row: Row) -> Double? {
        row.baseline.map { row.value / $0 }
    }

    static func met(_ row: Row) -> Bool? {
        guard let target = row.target else { return nil }
        switch target {
        case .atMost(let limit): return row.value <= limit
        case .ratioAtLeast(let wanted): return ratio(row).map { $0 >= wanted }
        case .ratioAtMost(let wanted): return ratio(row).map { $0 <= wanted }
        }
    }

    var table: String {
        var lines = ["| size | figure | value | baseline | ratio | target | met |", "| --- | --- | ---: | ---: | ---: | --- | --- |"]
        for row in rows {
            let baseline = row.baseline.map { format($0) } ?? ""
            let ratio = Self.ratio(row).map { format($0) + "×" } ?? ""
            let met = Self.met(row).map { $0 ? "yes" : "**no**" } ?? ""
            lines.append(
                "| \(row.group) | \(row.name) | \(format(row.value)) \(row.unit) | \(baseline) | \(ratio) | \(row.target?.description ?? "") | \(met) |"
            )
        }
        return lines.joined(separator: "\n")
    }

    var json: String {
        let rows = self.rows.map { row -> [String: Any] in
            var object: [String: Any] = ["size": row.group, "figure": row.name, "value": row.value, "unit": row.unit]
            if let baseline = row.baseline { object["baseline"] = baseline }
            if let ratio = Self.ratio(row) { object["ratio"] = ratio }
            if let target = row.target { object["target"] = target.description }
            if let met = Self.met(row) { object["met"] = met }
            return object
        }
        let matrices = queryMatrices.map { ["size": $0.size, "cells": QueryMatrix.json($0.cells)] as [String: Any] }
        let data = try! JSONSerialization.data(
            withJSONObject: ["machine": machine, "rows": rows, "queryMatrices": matrices],
            options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}

func format(_ value: Double) -> String {
    if value >= 1000 { return String(Int(value.rounded())) }
    if value >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
}
