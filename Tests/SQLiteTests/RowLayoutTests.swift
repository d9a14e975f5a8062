import SQLite
import Synchronization
import TestSupport
import Testing

/// A statement's columns are found by name, once per prepared statement.
@Suite struct RowLayoutTests {
    let directory = TemporaryDirectory()

    /// Counts its resolutions, to show that reading rows resolves no name.
    struct NameAndSize: RowLayout {
        static let resolutions = Mutex(0)
        let name, size: Int32

        init(_ statement: Statement) {
            Self.resolutions.withLock { $0 += 1 }
            name = statement.columnIndex("name")
            size = statement.columnIndex("size")
        }
    }

    @Test func columnsAreFoundByTheirNamesOrAliasesOncePerStatement() throws {
        let db = try Database(path: directory.file("layout.sqlite"))
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t (name) VALUES ('a'), ('bb'), ('ccc')")
        let statement = try db.cachedStatement("SELECT t.id, length(t.name) AS size, t.name FROM t ORDER BY id")
        #expect(statement.columnNames == ["id", "size", "name"])
        let before = NameAndSize.resolutions.withLock { $0 }
        for _ in 1...2 {
            let columns = statement.layout(NameAndSize.self)
            #expect(columns.name == 2 && columns.size == 1)
            var rows: [String] = []
            try statement.forEachRow { rows.append("\($0.text(columns.name)):\($0.int(columns.size))") }
            #expect(rows == ["a:1", "bb:2", "ccc:3"])
        }
        #expect(NameAndSize.resolutions.withLock { $0 } == before + 1)
    }

    /// Reading a column the statement does not have is a programming error: the process stops.
    @Test func aMissingColumnStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let db = try Database(path: ":memory:")
            _ = try db.cachedStatement("SELECT 1 AS one").columnIndex("two")
        }
    }

    /// A name the result holds twice cannot say which column it means.
    @Test func anAmbiguousColumnStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let db = try Database(path: ":memory:")
            _ = try db.cachedStatement("SELECT 1 AS one, 2 AS one").columnIndex("one")
        }
    }
}

extension RowLayoutTests {
    /// A text is read without asking its type: NULL has no bytes at all, an empty text has
    /// none but is there.
    @Test func optionalTextTellsNullFromEmpty() throws {
        let db = try Database(path: directory.file("texts.sqlite"))
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO t (text) VALUES (NULL), (''), ('é')")
        var read: [[UInt8]?] = []
        try db.cachedStatement("SELECT text FROM t ORDER BY id").forEachRow([]) { row in
            read.append(row.withOptionalUTF8(0) { $0.map(Array.init) })
        }
        #expect(read == [nil, [], Array("é".utf8)])
    }
}
