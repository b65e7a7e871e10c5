import ChatStreamBytes

/// A read-only cursor on one value of a parsed payload, for reading a few fields without
/// building a tree.
///
/// An element is valid only inside the closure passed to ``JSONParser/parse(_:streamOffset:_:)``;
/// the next parse reuses its storage. Copy out what you keep (``string``, ``jsonValue``).
///
/// ```swift
/// let parser = JSONParser()
/// let delta = try parser.parse(Array(#"{"type":"text-delta","delta":"Hi"}"#.utf8)) { root in
///     root["type"]?.isString("text-delta") == true ? root["delta"]?.string : nil
/// }
/// ```
public struct JSONElement {
    /// The kind of JSON value an element holds.
    public enum Kind: Sendable, Hashable {
        case null, bool, number, string, array, object
    }

    @usableFromInline unowned(unsafe) let tape: JSONTape
    @usableFromInline let index: Int

    @inlinable
    init(tape: JSONTape, index: Int) {
        self.tape = tape
        self.index = index
    }

    @inlinable
    var token: JSONTapeToken { tape.tokens[index] }

    /// What this element holds.
    public var kind: Kind {
        switch token.kind {
        case .null: return .null
        case .falseValue, .trueValue: return .bool
        case .number: return .number
        case .string, .key: return .string
        case .array: return .array
        case .object: return .object
        }
    }

    /// Whether this is `null`.
    public var isNull: Bool { token.kind == .null }

    /// The Boolean, when this is `true` or `false`.
    public var bool: Bool? {
        switch token.kind {
        case .trueValue: return true
        case .falseValue: return false
        default: return nil
        }
    }

    /// Calls `body` with the UTF-8 bytes of a string (already unescaped and validated), or
    /// returns nil when this is not a string. The bytes are valid only during the call.
    @inlinable
    public func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        let token = self.token
        guard token.kind == .string || token.kind == .key else { return nil }
        let start = JSONTape.start(of: token, input: tape.input, arena: tape.arena)
        return try body(UnsafeRawBufferPointer(start: start, count: Int(token.b)))
    }

    /// The string, when this is a string.
    public var string: String? {
        withUTF8 { String(tapeUTF8: $0) }
    }

    /// Whether this is a string equal to `text`, compared without making a `String`.
    @inlinable @inline(__always)
    public func isString(_ text: StaticString) -> Bool {
        withUTF8 { $0.sameBytes(as: text) }
            ?? false
    }

    /// The number, when this is a number.
    public var number: JSONNumber? {
        let token = self.token
        guard token.kind == .number else { return nil }
        return JSONNumber(validLiteral: tape.bytes(of: token))
    }

    /// The number as `Int64`, when it is an integer that fits.
    public var int64: Int64? { number?.int64Value }

    /// The number as `Int`, when it is an integer that fits.
    public var int: Int? { int64.flatMap { Int(exactly: $0) } }

    /// The number as `Double`, when this is a number.
    public var double: Double? { number?.doubleValue }

    /// The number of members of an object or elements of an array; nil otherwise.
    public var count: Int? {
        let token = self.token
        return token.kind == .object || token.kind == .array ? tape.childCount(of: index) : nil
    }

    /// The value of the member named `key`, when this is an object that has it (the last one
    /// if the key repeats).
    @inlinable
    public subscript(key: StaticString) -> JSONElement? {
        member(UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    }

    /// The value of the member named by a run-time `key`, when this is an object that has it.
    /// (Literal keys use `element["key"]`, which compares bytes without touching a `String`.)
    public subscript(named key: String) -> JSONElement? {
        var key = key
        return key.withUTF8 { member(UnsafeRawBufferPointer($0)) }
    }

    @inlinable
    func member(_ key: UnsafeRawBufferPointer) -> JSONElement? {
        // Only raw pointers inside the loop: no reference counting, no method calls on the tape.
        let tokens = tape.tokens
        let input = tape.input
        let arena = tape.arena
        let token = tokens[index]
        guard token.kind == .object else { return nil }
        let end = Int(token.a)
        let keyCount = key.count
        var i = index &+ 1
        var found = -1
        while i < end {
            let keyToken = tokens[i]
            if Int(keyToken.b) == keyCount
                && (keyCount == 0
                    || memcmpBytes(JSONTape.start(of: keyToken, input: input, arena: arena), key.baseAddress!, keyCount))
            {
                found = i &+ 1  // keep going: a repeated key's last value wins
            }
            let value = tokens[i &+ 1]
            i = value.kind == .object || value.kind == .array ? Int(value.a) : i &+ 2
        }
        return found < 0 ? nil : JSONElement(tape: tape, index: found)
    }

    /// The values of three members, found in one pass over the object (each the last value of
    /// its key when a key repeats); nils when this is not an object.
    @inlinable @inline(__always)
    public func members(
        _ first: StaticString, _ second: StaticString, _ third: StaticString
    ) -> (JSONElement?, JSONElement?, JSONElement?) {
        let tokens = tape.tokens
        let input = tape.input
        let arena = tape.arena
        let token = tokens[index]
        guard token.kind == .object else { return (nil, nil, nil) }
        let end = Int(token.a)
        var i = index &+ 1
        var a = -1
        var b = -1
        var c = -1
        while i < end {
            let keyToken = tokens[i]
            let length = Int(keyToken.b)
            let key = JSONTape.start(of: keyToken, input: input, arena: arena)
            if length == first.utf8CodeUnitCount && memcmpBytes(key, first.utf8Start, length) {
                a = i &+ 1
            } else if length == second.utf8CodeUnitCount && memcmpBytes(key, second.utf8Start, length) {
                b = i &+ 1
            } else if length == third.utf8CodeUnitCount && memcmpBytes(key, third.utf8Start, length) {
                c = i &+ 1
            }
            let value = tokens[i &+ 1]
            i = value.kind == .object || value.kind == .array ? Int(value.a) : i &+ 2
        }
        return (
            a < 0 ? nil : JSONElement(tape: tape, index: a), b < 0 ? nil : JSONElement(tape: tape, index: b),
            c < 0 ? nil : JSONElement(tape: tape, index: c)
        )
    }

    /// The values of exactly three members, `first`, `second` and `third` in that order, when
    /// this is an object of just those and none of the values is an object or an array; nil
    /// otherwise. A fixed-position check on the tape, for the one shape a stream repeats event
    /// after event (a caller reads every other shape with ``members(_:_:_:)``).
    @inlinable @inline(__always)
    package func scalarMembersInOrder(
        _ first: StaticString, _ second: StaticString, _ third: StaticString
    ) -> (JSONElement, JSONElement, JSONElement)? {
        let tokens = tape.tokens + index
        // Seven tokens: the object, then key and value three times.
        guard tokens[0].kind == .object, Int(tokens[0].a) == index &+ 7 else { return nil }
        let input = tape.input
        let arena = tape.arena
        @inline(__always) func isKey(_ position: Int, _ name: StaticString) -> Bool {
            let token = tokens[position]
            return Int(token.b) == name.utf8CodeUnitCount
                && memcmpBytes(JSONTape.start(of: token, input: input, arena: arena), name.utf8Start, Int(token.b))
        }
        @inline(__always) func isScalar(_ position: Int) -> Bool {
            let kind = tokens[position].kind
            return kind != .object && kind != .array
        }
        // With the first two values scalars, the keys stand at 1, 3 and 5 and the last value at 6
        // (which may still be an empty object or array).
        guard isScalar(2), isScalar(4), isScalar(6), isKey(1, first), isKey(3, second), isKey(5, third) else {
            return nil
        }
        return (
            JSONElement(tape: tape, index: index &+ 2), JSONElement(tape: tape, index: index &+ 4),
            JSONElement(tape: tape, index: index &+ 6)
        )
    }

    /// Calls `body` with each member's key and value, in order, when this is an object.
    public func forEachMember(_ body: (JSONElement, JSONElement) throws -> Void) rethrows {
        let token = self.token
        guard token.kind == .object else { return }
        var i = index + 1
        while i < Int(token.a) {
            try body(JSONElement(tape: tape, index: i), JSONElement(tape: tape, index: i + 1))
            i = tape.next(after: i + 1)
        }
    }

    /// Calls `body` with each element, in order, when this is an array.
    public func forEachElement(_ body: (JSONElement) throws -> Void) rethrows {
        let token = self.token
        guard token.kind == .array else { return }
        var i = index + 1
        while i < Int(token.a) {
            try body(JSONElement(tape: tape, index: i))
            i = tape.next(after: i)
        }
    }

    /// The element at `position`, when this is an array long enough.
    public subscript(position: Int) -> JSONElement? {
        var result: JSONElement? = nil
        var k = 0
        forEachElement { element in
            if k == position { result = element }
            k += 1
        }
        return result
    }

    /// This value as a tree. A key that repeats keeps its last value.
    public var jsonValue: JSONTree {
        JSONElement.materialize(tape, index)
    }

    /// Whether two members of the object at `index` have the same key, compared as bytes in the
    /// tape (no `String` made). Objects are small as a rule, so every pair is compared, mostly
    /// by length alone; past 64 members the answer is simply yes (the caller then looks keys up).
    private static func hasRepeatedKey(_ tape: JSONTape, _ index: Int, memberCount: Int) -> Bool {
        let token = tape.tokens[index]
        guard memberCount <= 64 else { return true }
        var i = index + 1
        while i < Int(token.a) {
            let key = tape.bytes(of: tape.tokens[i])
            var j = index + 1
            while j < i {
                if key.sameBytes(as: tape.bytes(of: tape.tokens[j])) { return true }
                j = tape.next(after: j + 1)
            }
            i = tape.next(after: i + 1)
        }
        return false
    }

    private static func materialize(_ tape: JSONTape, _ index: Int) -> JSONTree {
        let token = tape.tokens[index]
        func bytes() -> UnsafeRawBufferPointer { tape.bytes(of: token) }
        switch token.kind {
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .number: return JSONNumber(validLiteral: bytes()).map(JSONTree.number) ?? .null
        case .string, .key: return .string(String(tapeUTF8: bytes()))
        case .array:
            var elements: [JSONTree] = []
            elements.reserveCapacity(tape.childCount(of: index))
            var i = index + 1
            while i < Int(token.a) {
                elements.append(materialize(tape, i))
                i = tape.next(after: i)
            }
            return .array(elements)
        case .object:
            var object = JSONObject()
            let count = tape.childCount(of: index)
            object.reserveCapacity(count)
            let repeats = count > 1 && hasRepeatedKey(tape, index, memberCount: count)
            var positions: [JSONKey: Int] = [:]
            var i = index + 1
            while i < Int(token.a) {
                let key = String(tapeUTF8: tape.bytes(of: tape.tokens[i]))
                let value = materialize(tape, i + 1)
                if !repeats {
                    object.appendUnchecked(key: key, value: value)
                } else if let existing = positions[JSONKey(key)] {
                    object.replaceValue(at: existing, with: value)
                } else {
                    positions[JSONKey(key)] = object.count
                    object.appendUnchecked(key: key, value: value)
                }
                i = tape.next(after: i + 1)
            }
            return .object(object)
        }
    }
}

extension String {
    /// A string from the bytes of a tape's string or key, which are well-formed UTF-8: the parser
    /// checks every payload before yajl sees it, and both unescapers write only well-formed
    /// sequences (a lone surrogate escape becomes U+FFFD). So they are not checked a second
    /// time where the standard library can take them unchecked. Debug builds (the tests and the
    /// fuzzers) still check them, so a break in that chain fails loudly there.
    @inlinable
    package init(tapeUTF8 bytes: UnsafeRawBufferPointer) {
        assert(String(validating: bytes, as: UTF8.self) != nil, "a tape string holds ill-formed UTF-8")
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *),
            let base = bytes.baseAddress
        {
            let buffer = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            self = String(copying: UTF8Span(unchecked: buffer.span))
        } else {
            self = String(decoding: bytes, as: UTF8.self)
        }
    }
}
