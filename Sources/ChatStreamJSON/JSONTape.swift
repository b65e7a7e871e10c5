// JSONTape: the parser's flat, reusable record of one parsed value.
//
// Each yajl callback appends one token; strings, keys and number literals are copied into one
// byte arena. A container's token records the index just past its end, so a reader skips a
// whole subtree in one step. Storage is raw memory the tape owns and reuses from value to
// value: appending is a bounds check and a store (no reference counting, no copy-on-write
// checks), so parsing a stream of small events allocates nothing in steady state. Readers
// use `JSONElement`, a cursor into the tape; a `JSONValue` tree is built only on request.

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

    @inlinable @inline(__always)
    init(kind: Kind, a: UInt32, b: UInt32) {
        self.kind = kind
        self.a = a
        self.b = b
    }
}

/// The tape one `JSONParser` fills and its readers walk. Valid until the parser's next parse.
@usableFromInline
final class JSONTape {
    @exclusivity(unchecked) @usableFromInline var tokens: UnsafeMutablePointer<JSONTapeToken>
    @exclusivity(unchecked) @usableFromInline var tokenCount = 0
    @exclusivity(unchecked) private var tokenCapacity: Int
    @exclusivity(unchecked) @usableFromInline var arena: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var arenaCount = 0
    @exclusivity(unchecked) private var arenaCapacity: Int
    /// Indices of the containers still open while parsing.
    @exclusivity(unchecked) private var open: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private var openCount = 0
    @exclusivity(unchecked) private var openCapacity: Int

    init() {
        tokenCapacity = 64
        tokens = .allocate(capacity: tokenCapacity)
        arenaCapacity = 1024
        arena = .allocate(capacity: arenaCapacity)
        openCapacity = 16
        open = .allocate(capacity: openCapacity)
    }

    deinit {
        tokens.deallocate()
        arena.deallocate()
        open.deallocate()
    }

    @inline(__always)
    func reset() {
        tokenCount = 0
        arenaCount = 0
        openCount = 0
    }

    @inline(__always)
    private func appendToken(_ token: JSONTapeToken) {
        if tokenCount == tokenCapacity { growTokens() }
        (tokens + tokenCount).initialize(to: token)
        tokenCount &+= 1
    }

    @inline(never)
    private func growTokens() {
        let bigger = UnsafeMutablePointer<JSONTapeToken>.allocate(capacity: tokenCapacity * 2)
        bigger.moveInitialize(from: tokens, count: tokenCount)
        tokens.deallocate()
        tokens = bigger
        tokenCapacity *= 2
    }

    /// Makes room for `count` more arena bytes.
    @inline(__always)
    func reserveArena(_ count: Int) {
        if arenaCount + count > arenaCapacity { growArena(to: arenaCount + count) }
    }

    @inline(never)
    private func growArena(to needed: Int) {
        var capacity = arenaCapacity * 2
        while capacity < needed { capacity *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        bigger.update(from: arena, count: arenaCount)
        arena.deallocate()
        arena = bigger
        arenaCapacity = capacity
    }

    /// Appends one byte to the arena (room must have been reserved).
    @inline(__always)
    func appendArenaByte(_ byte: UInt8) {
        arena[arenaCount] = byte
        arenaCount &+= 1
    }

    /// Appends bytes to the arena.
    @inline(__always)
    func appendArena(_ bytes: UnsafeRawBufferPointer) {
        reserveArena(bytes.count)
        if let base = bytes.baseAddress {
            (arena + arenaCount).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        }
        arenaCount &+= bytes.count
    }

    /// Forgets arena bytes written from `offset` on.
    @inline(__always)
    func truncateArena(to offset: Int) { arenaCount = offset }

    @inline(__always)
    func appendScalar(_ kind: JSONTapeToken.Kind) {
        countChild()
        appendToken(JSONTapeToken(kind: kind, a: 0, b: 0))
    }

    @inline(__always)
    func appendBytes(_ kind: JSONTapeToken.Kind, _ bytes: UnsafeRawBufferPointer) {
        let offset = arenaCount
        appendArena(bytes)
        appendArenaTail(kind, from: offset)
    }

    /// Appends a string or key token with these bytes when they are well-formed UTF-8, checking
    /// and copying in one pass (eight ASCII bytes at a time); otherwise appends nothing and
    /// returns the index of the first bad byte.
    @inline(__always)
    func appendValidatedString(_ kind: JSONTapeToken.Kind, _ source: UnsafeRawPointer, _ count: Int) -> Int? {
        reserveArena(count)
        let offset = arenaCount
        let destination = UnsafeMutableRawPointer(arena + offset)
        var i = 0
        while i &+ 8 <= count {
            let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            destination.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
            i &+= 8
        }
        if i < count {
            var highBits: UInt8 = 0
            var k = i
            while k < count {
                let byte = source.load(fromByteOffset: k, as: UInt8.self)
                highBits |= byte
                destination.storeBytes(of: byte, toByteOffset: k, as: UInt8.self)
                k &+= 1
            }
            if highBits & 0x80 != 0 {
                let rest = UnsafeRawBufferPointer(start: source + i, count: count &- i)
                if let bad = UTF8Validation.firstInvalidIndex(rest) { return i &+ bad }
            }
        }
        arenaCount &+= count
        appendArenaTail(kind, from: offset)
        return nil
    }

    /// Appends a string-like token whose bytes the caller has already written to the end of the arena.
    @inline(__always)
    func appendArenaTail(_ kind: JSONTapeToken.Kind, from offset: Int) {
        if kind != .key { countChild() }
        appendToken(
            JSONTapeToken(
                kind: kind, a: UInt32(truncatingIfNeeded: offset), b: UInt32(truncatingIfNeeded: arenaCount - offset)))
    }

    @inline(__always)
    func openContainer(_ kind: JSONTapeToken.Kind) {
        countChild()
        if openCount == openCapacity { growOpen() }
        open[openCount] = tokenCount
        openCount &+= 1
        appendToken(JSONTapeToken(kind: kind, a: 0, b: 0))
    }

    @inline(never)
    private func growOpen() {
        let bigger = UnsafeMutablePointer<Int>.allocate(capacity: openCapacity * 2)
        bigger.update(from: open, count: openCount)
        open.deallocate()
        open = bigger
        openCapacity *= 2
    }

    @inline(__always)
    func closeContainer() {
        openCount &-= 1
        tokens[open[openCount]].a = UInt32(truncatingIfNeeded: tokenCount)
    }

    @inline(__always)
    private func countChild() {
        if openCount > 0 { tokens[open[openCount &- 1]].b &+= 1 }
    }

    /// The index of the token after the value that starts at `index`.
    @inlinable @inline(__always)
    func next(after index: Int) -> Int {
        let token = tokens[index]
        return token.kind == .object || token.kind == .array ? Int(token.a) : index &+ 1
    }

    /// The bytes of a string, key or number token.
    @inlinable @inline(__always)
    func bytes(of token: JSONTapeToken) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: arena + Int(token.a), count: Int(token.b))
    }
}
