import ChatStreamBytes

/// A JSON object: members in the order they arrived, looked up by key.
///
/// Keys are compared by their UTF-8 bytes, as JSON compares them: `"é"` written as one scalar
/// and as `e` plus a combining accent are two keys (Swift's `String ==` would merge them).
///
/// Equality and hashing ignore member order (`{"a":1,"b":2}` equals `{"b":2,"a":1}`);
/// iteration, ``keys`` and serialization keep it. A key appears at most once: setting an
/// existing key replaces its value in place, and a parsed object with a repeated key keeps
/// the last value at the position of the first.
public struct JSONObject: Sendable, Hashable, Sequence {
    public typealias Element = (key: String, value: JSONTree)

    /// The keys, in order.
    public private(set) var keys: [String]
    /// The values, in the order of ``keys``.
    public private(set) var values: [JSONTree]

    /// An empty object.
    public init() {
        keys = []
        values = []
    }

    /// An object with these members in this order; a repeated key keeps its last value.
    public init(_ members: some Sequence<(String, JSONTree)>) {
        self.init()
        reserveCapacity(members.underestimatedCount)
        for (key, value) in members { self[key] = value }
    }

    /// The number of members.
    public var count: Int { keys.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// The value for `key`; setting `nil` removes the member.
    public subscript(key: String) -> JSONTree? {
        get {
            guard let index = index(ofKey: key) else { return nil }
            return values[index]
        }
        set {
            if let index = index(ofKey: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// The position of `key`, compared by UTF-8 bytes.
    @usableFromInline
    func index(ofKey key: String) -> Int? {
        keys.firstIndex { $0.hasSameUTF8(as: key) }
    }

    /// Makes room for `count` members (a shape built member by member then grows its two arrays
    /// once, not at each doubling).
    @usableFromInline
    package mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    /// Appends a member without looking for an existing key: the caller guarantees the key is new.
    @usableFromInline
    mutating func appendUnchecked(key: String, value: JSONTree) {
        keys.append(key)
        values.append(value)
    }

    /// Removes the last member (the object must have one).
    @usableFromInline
    mutating func removeLastUnchecked() {
        keys.removeLast()
        values.removeLast()
    }

    /// Replaces the value at a position.
    @usableFromInline
    mutating func replaceValue(at index: Int, with value: JSONTree) {
        values[index] = value
    }

    public func makeIterator() -> some IteratorProtocol<Element> {
        zip(keys, values).lazy.map { (key: $0.0, value: $0.1) }.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if zip(lhs.keys, rhs.keys).allSatisfy({ $0.hasSameUTF8(as: $1) }) { return lhs.values == rhs.values }
        for (key, value) in zip(lhs.keys, lhs.values) where rhs[key] != value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine each member's own hash commutatively.
        var combined = 0
        for (key, value) in zip(keys, values) {
            var memberHasher = Hasher()
            memberHasher.combine(key)
            memberHasher.combine(value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

/// A key that hashes and compares by its UTF-8 bytes, for indexes of large objects.
@usableFromInline
struct JSONKey: Hashable, Sendable {
    @usableFromInline let string: String

    @usableFromInline
    init(_ string: String) { self.string = string }

    @usableFromInline
    static func == (lhs: JSONKey, rhs: JSONKey) -> Bool { lhs.string.hasSameUTF8(as: rhs.string) }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
