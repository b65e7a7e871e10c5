// JSONTape: the parser's flat, reusable record of one parsed value.
//
// Each yajl callback appends one token. A string or key without escapes is not copied: its token
// points into the payload being parsed (which outlives every reader, since elements live only
// inside the parse call). Unescaped strings and number literals are written to one byte arena,
// and their tokens carry `arenaFlag`. A container's token records the index just past its end,
// so a reader skips a whole subtree in one step. Storage is raw memory the tape owns and reuses
// from value to value: appending is a bounds check and a store (no reference counting, no
// copy-on-write checks), so parsing a stream of small events allocates nothing in steady state. Readers
// use `JSONElement`, a cursor into the tape; a `JSONTree` tree is built only on request.

@usableFromInline
struct JSONTapeToken {
    @usableFromInline
    enum Kind: UInt8 {
        case null, falseValue, trueValue, number, string, key, object, array
    }
    @usableFromInline var kind: Kind
    /// Strings, keys, numbers: offset in the payload, or in the arena when `JSONTape.arenaFlag`
    /// is set. Containers: index of the token after the end.
    @usableFromInline var a: UInt32
    /// Strings, keys, numbers: byte length. Containers: 0 (their members or elements are
    /// counted on request, by ``JSONTape/childCount(of:)``, so the parse does no work for it).
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
    /// Set in a string token's `a` when its bytes are in the arena rather than in the payload.
    @inlinable static var arenaFlag: UInt32 { 0x8000_0000 }

    /// The payload being parsed: tokens without `arenaFlag` point into it.
    @exclusivity(unchecked) @usableFromInline var input = UnsafeRawPointer(bitPattern: 1)!
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
        appendToken(JSONTapeToken(kind: kind, a: 0, b: 0))
    }

    @inline(__always)
    func appendBytes(_ kind: JSONTapeToken.Kind, _ bytes: UnsafeRawBufferPointer) {
        let offset = arenaCount
        appendArena(bytes)
        appendArenaTail(kind, from: offset)
    }

    /// Appends a string or key token for bytes of the payload itself (`offset` from `input`),
    /// already checked by the caller; nothing is copied.
    @inline(__always)
    func appendInputString(_ kind: JSONTapeToken.Kind, offset: Int, count: Int) {
        appendStringToken(kind, a: UInt32(truncatingIfNeeded: offset), count: count)
    }

    /// Appends a string-like token whose bytes the caller has already written to the end of the arena.
    @inline(__always)
    func appendArenaTail(_ kind: JSONTapeToken.Kind, from offset: Int) {
        appendStringToken(kind, a: UInt32(truncatingIfNeeded: offset) | JSONTape.arenaFlag, count: arenaCount - offset)
    }

    /// Appends a string or key token for bytes of the payload itself, when the token array has
    /// room; returns false, appending nothing, when it must grow first (the caller's slow path
    /// then appends with ``appendInputString(_:offset:count:)``). No call on the way, so a
    /// callback whose fast path is only this keeps to scratch registers.
    @inline(__always)
    func appendInputStringIfRoom(_ kind: JSONTapeToken.Kind, offset: Int, count: Int) -> Bool {
        let index = tokenCount
        guard index != tokenCapacity else { return false }
        (tokens + index).initialize(
            to: JSONTapeToken(kind: kind, a: UInt32(truncatingIfNeeded: offset), b: UInt32(truncatingIfNeeded: count)))
        tokenCount = index &+ 1
        return true
    }

    /// Opens a container when both the token array and the open-container stack have room;
    /// returns false, changing nothing, otherwise (then use ``openContainer(_:)``).
    @inline(__always)
    func openContainerIfRoom(_ kind: JSONTapeToken.Kind) -> Bool {
        let index = tokenCount
        let depth = openCount
        guard index != tokenCapacity, depth != openCapacity else { return false }
        open[depth] = index
        openCount = depth &+ 1
        (tokens + index).initialize(to: JSONTapeToken(kind: kind, a: 0, b: 0))
        tokenCount = index &+ 1
        return true
    }

    /// Appends a string, key or number token.
    @inline(__always)
    private func appendStringToken(_ kind: JSONTapeToken.Kind, a: UInt32, count: Int) {
        appendToken(JSONTapeToken(kind: kind, a: a, b: UInt32(truncatingIfNeeded: count)))
    }

    @inline(__always)
    func openContainer(_ kind: JSONTapeToken.Kind) {
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

    /// The number of members of the object, or elements of the array, whose token is at `index`.
    func childCount(of index: Int) -> Int {
        let token = tokens[index]
        let end = Int(token.a)
        let step = token.kind == .object ? 1 : 0  // an object's key comes before each value
        var count = 0
        var i = index &+ 1
        while i < end {
            count &+= 1
            i = next(after: i &+ step)
        }
        return count
    }

    /// The index of the token after the value that starts at `index`.
    @inlinable @inline(__always)
    func next(after index: Int) -> Int {
        let token = tokens[index]
        return token.kind == .object || token.kind == .array ? Int(token.a) : index &+ 1
    }

    /// Where the bytes of a string, key or number token start, given the tape's `input` and
    /// `arena` (static, so readers in loops pass raw pointers and never touch the object).
    @inlinable @inline(__always)
    static func start(
        of token: JSONTapeToken, input: UnsafeRawPointer, arena: UnsafeMutablePointer<UInt8>
    ) -> UnsafeRawPointer {
        token.a & JSONTape.arenaFlag == 0
            ? input + Int(token.a) : UnsafeRawPointer(arena) + Int(token.a & ~JSONTape.arenaFlag)
    }

    /// The bytes of a string, key or number token.
    @inlinable @inline(__always)
    func bytes(of token: JSONTapeToken) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: JSONTape.start(of: token, input: input, arena: arena), count: Int(token.b))
    }
}
