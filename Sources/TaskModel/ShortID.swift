/// Ids shortened the way git shortens hashes, for people typing them: a short id is the
/// shortest start of the id's *key* that no other task's key shares, at least
/// `minimumLength` characters; any unique start of a key, at least `minimumPrefixLength`
/// long, finds the task.
///
/// The key of a version-7 UUID (the ids the server makes) is its last group of 12 hex
/// digits. Its first groups are the time it was made, which ids made close together share
/// (8 characters within a minute): their starts would make short ids of 10 characters and
/// more, and the one `add` prints would stop being unique as soon as the next task came.
/// The last group is random. The key of any other id (a random UUID, an id a client chose)
/// is the whole id.
public enum ShortID {
    /// A short id has at least this many characters (or is the whole key, when shorter).
    public static let minimumLength = 7
    /// A start given to find a task must have at least this many characters, unless it is
    /// a whole id: git's limit, so that a slip of the finger cannot pick a task by accident.
    public static let minimumPrefixLength = 4

    public enum LookupError: Error, Sendable, Hashable, CustomStringConvertible {
        case notFound(given: String)
        case tooShort(given: String)
        /// `candidates`: the first few ids (in id order) whose short ids it starts.
        case ambiguous(given: String, candidates: [String])

        public var description: String {
            switch self {
            case .notFound(let given):
                "no task has the id or short id \(given)"
            case .tooShort(let given):
                "\(given) is too short: give at least \(ShortID.minimumPrefixLength) characters of a short id"
            case .ambiguous(let given, let candidates):
                "\(given) is ambiguous: it starts the short ids of \(candidates.joined(separator: ", "))\(candidates.count >= ShortID.maxCandidates ? ", …" : "")"
            }
        }
    }

    /// How many ids an ambiguous start lists.
    package static let maxCandidates = 5

    /// The part of `id` its short id is a start of (see the type's comment).
    package static func key(of id: String) -> Substring.UnicodeScalarView {
        let scalars = Substring(id).unicodeScalars
        guard scalars.count == 36 else { return scalars }
        let characters = Array(scalars)
        let isVersion7 = [8, 13, 18, 23].allSatisfy { characters[$0] == "-" } && characters[14] == "7"
        return isVersion7 ? scalars.dropFirst(24) : scalars
    }

    /// The number of leading characters (Unicode scalars) `a` and `b` share.
    package static func commonPrefixLength(_ a: some Collection<Unicode.Scalar>, _ b: some Collection<Unicode.Scalar>) -> Int {
        zip(a, b).prefix { $0 == $1 }.count
    }
}

/// The short ids of tasks, from the ids whose keys share their first `minimumLength`
/// characters with another's: only those need more.
public struct ShortIDs: Sendable {
    /// Ids by the first `minimumLength` characters of their keys.
    private var crowded: [String: [String]] = [:]

    package init(crowdedIDs: [String]) {
        for id in crowdedIDs { crowded[Self.head(of: ShortID.key(of: id)), default: []].append(id) }
    }

    /// The first `ShortID.minimumLength` characters of `key`: what crowded keys share.
    package static func head(of key: Substring.UnicodeScalarView) -> String {
        String(Substring(key.prefix(ShortID.minimumLength)))
    }

    /// The shortest start of `id`'s key that no other key among the crowded ones starts
    /// with, and at least `ShortID.minimumLength` long; the whole id when nothing shorter
    /// tells it apart (its key is another's, or starts another's).
    public func shortID(for id: String) -> String {
        let key = ShortID.key(of: id)
        let others = crowded[Self.head(of: key)] ?? []
        let shared = others.filter { $0 != id }.map { ShortID.commonPrefixLength(key, ShortID.key(of: $0)) }.max() ?? 0
        guard shared < key.count else { return id }
        return String(Substring(key.prefix(max(shared + 1, ShortID.minimumLength))))
    }
}

extension ShortIDs {
    /// Past this many heads, a store finds every crowded id (`heads(of:)`).
    package static let mostHeads = 4_096

    /// The heads of the keys of `ids`: a store gives `init(crowdedIDs:)` the ids whose keys
    /// start with one of them, and so the short ids of `ids`. A key of `minimumLength`
    /// characters or fewer has none: its short id is its whole id, whatever the others.
    /// They are padded to a power of two by repeating the last, so that the store's
    /// statement is one of a few; nil when there are more than `mostHeads`: then the store
    /// gives every crowded id, as one grouping of every key costs less than passes over them.
    package static func heads(of ids: some Sequence<String>) -> [String]? {
        var heads = Array(Set(ids.lazy.map(ShortID.key(of:)).filter { $0.count > ShortID.minimumLength }.map(head(of:))))
        guard heads.count <= mostHeads else { return nil }
        guard let last = heads.last else { return [] }
        var padded = 1
        while padded < heads.count { padded *= 2 }
        heads += repeatElement(last, count: padded - heads.count)
        return heads
    }
}

extension ShortID {
    /// The id `text` finds, the same on every store: `isID` tells whether a task has the id
    /// `text`; `idsWhoseKeysStart` gives, in id order, the first `maxCandidates` ids whose
    /// keys start with it. Throws `LookupError` when there is no such task, or more than
    /// one, or when `text` is shorter than `minimumPrefixLength` and not a whole id.
    package static func resolve(_ text: String, isID: () throws -> Bool, idsWhoseKeysStart: () throws -> [String]) throws -> String {
        if try isID() { return text }
        guard text.unicodeScalars.count >= minimumPrefixLength else { throw LookupError.tooShort(given: text) }
        let candidates = try idsWhoseKeysStart()
        switch candidates.count {
        case 0: throw LookupError.notFound(given: text)
        case 1: return candidates[0]
        default: throw LookupError.ambiguous(given: text, candidates: candidates)
        }
    }
}
