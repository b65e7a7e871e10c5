// JSONTape: the parser's flat, reusable record of one parsed value.
//
// Each yajl callback appends one token; strings, keys and number literals are copied into one
// byte arena. A container's token records the index just past its end, so a reader skips a
// whole subtree in one step. Both arrays keep their capacity from value to value, so parsing a
// stream of small events allocates nothing in steady state. Readers use `JSONElement`, a cursor
// into the tape; a `JSONValue` tree is built only on request.

@usableFromInline
struct JSONTapeToken {
    @usableFromInline
    enum Kind: UInt8 {
        case null, falseValue, trueValue, number, string, key, object, array
    }
    @usableFromInline var kind: Kind
    /// Strings, keys, numbers: offset in the arena. Containers: index of the token after the end.
    @usableFromInline var a: UInt32
    /// Strings, keys, numbers: byte length. Containers: number of members or elements.
    @usableFromInline var b: UInt32
}

/// The tape one `JSONParser` fills and its readers walk. Valid until the parser's next parse.
@usableFromInline
final class JSONTape {
    @exclusivity(unchecked)     @usableFromInline var tokens: [JSONTapeToken] = []
    @exclusivity(unchecked)     @usableFromInline var arena: [UInt8] = []
    /// Indices of the containers still open while parsing.
    @exclusivity(unchecked)     var open: [Int] = []

    init() {
        tokens.reserveCapacity(64)
        arena.reserveCapacity(1024)
        open.reserveCapacity(16)
    }

    func reset() {
        tokens.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    func appendScalar(_ kind: JSONTapeToken.Kind) {
        tokens.append(JSONTapeToken(kind: kind, a: 0, b: 0))
        countChild()
    }

    @inline(__always)
    func appendBytes(_ kind: JSONTapeToken.Kind, _ bytes: UnsafeRawBufferPointer) {
        let offset = UInt32(truncatingIfNeeded: arena.count)
        arena.append(contentsOf: bytes)
        tokens.append(JSONTapeToken(kind: kind, a: offset, b: UInt32(truncatingIfNeeded: bytes.count)))
        if kind != .key { countChild() }
    }

    /// Appends a string token whose bytes the caller has already written to the end of the arena.
    @inline(__always)
    func appendArenaTail(_ kind: JSONTapeToken.Kind, from offset: Int) {
        tokens.append(
            JSONTapeToken(kind: kind, a: UInt32(truncatingIfNeeded: offset), b: UInt32(truncatingIfNeeded: arena.count - offset)))
        if kind != .key { countChild() }
    }

    @inline(__always)
    func openContainer(_ kind: JSONTapeToken.Kind) {
        countChild()
        open.append(tokens.count)
        tokens.append(JSONTapeToken(kind: kind, a: 0, b: 0))
    }

    @inline(__always)
    func closeContainer() {
        let index = open.removeLast()
        tokens[index].a = UInt32(truncatingIfNeeded: tokens.count)
    }

    @inline(__always)
    private func countChild() {
        if let parent = open.last { tokens[parent].b &+= 1 }
    }

    /// The index of the token after the value that starts at `index`.
    @inlinable @inline(__always)
    func next(after index: Int) -> Int {
        let token = tokens[index]
        return token.kind == .object || token.kind == .array ? Int(token.a) : index + 1
    }
}
