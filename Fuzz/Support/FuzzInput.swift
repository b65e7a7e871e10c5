// FuzzInput: how every ChatStream fuzz target reads its input.
//
// The first byte seeds the chunking (so libFuzzer mutates chunk boundaries too), the second
// byte holds option bits the target interprets (dialect, lenient mode, limits), and the rest is
// the payload. `pieces` cuts the payload into chunks of 0...maxPiece bytes chosen by a seeded
// generator; empty chunks are included on purpose. Violations go through `check`, which traps so
// libFuzzer records the input as a crash.

/// The split of one fuzz input into control bytes and payload.
public struct FuzzInput {
    /// Seeds the chunk sizes.
    public let chunkSeed: UInt8
    /// Option bits for the target.
    public let options: UInt8
    /// The bytes the decoder sees.
    public let payload: [UInt8]

    /// Reads a libFuzzer input; nil when it is too short to hold the two control bytes.
    public init?(_ data: UnsafePointer<UInt8>, _ size: Int) {
        guard size >= 2 else { return nil }
        chunkSeed = data[0]
        options = data[1]
        payload = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    }

    /// Makes an input from its parts (tests and regression replays).
    public init(chunkSeed: UInt8, options: UInt8, payload: [UInt8]) {
        self.chunkSeed = chunkSeed
        self.options = options
        self.payload = payload
    }

    /// The payload cut into pieces driven by `chunkSeed`: the low 2 bits pick the largest piece
    /// (1, 7, 64 or 4096 bytes), the rest seed the sizes. Some pieces are empty.
    public var pieces: [ArraySlice<UInt8>] {
        let maxPiece = [1, 7, 64, 4096][Int(chunkSeed & 3)]
        var state = UInt64(chunkSeed) &* 0x9E37_79B9_7F4A_7C15 | 1
        var result: [ArraySlice<UInt8>] = []
        var index = 0
        while index < payload.count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let size = maxPiece == 1 ? Int(state % 5 == 0 ? 0 : 1) : Int(state % UInt64(maxPiece + 1))
            let end = min(payload.count, index + size)
            result.append(payload[index..<end])
            index = end
        }
        result.append(payload[payload.count...])
        return result
    }

    /// The option bit `n` (0...7).
    public func bit(_ n: Int) -> Bool { options & (1 << UInt8(n)) != 0 }
}

/// Traps with `message` when `condition` is false, so libFuzzer keeps the input.
@inline(__always)
public func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant violated: " + message()) }
}

/// Calls `body` with each piece as raw bytes (contiguous, valid during the call).
public func forEachPiece(_ pieces: [ArraySlice<UInt8>], _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
    for piece in pieces {
        try piece.withUnsafeBytes { try body($0) }
    }
}
