// Chunkings: the ways every decoder test splits its input.
//
// Every decoder in ChatStream must give the same output however its input is cut. Tests run
// each input through `Chunkings.all(of:)` and compare every result with the whole-input one.

/// The splittings of one input that every decoder test must agree on.
public enum Chunkings {
    /// A named way of cutting an input into pieces.
    public struct Chunking: Sendable, CustomStringConvertible {
        public let name: String
        public let pieces: [[UInt8]]
        public var description: String { name }
    }

    /// The whole input in one piece, one byte at a time, several random cuttings (seeded, so a
    /// failure repeats), and random cuttings with empty pieces inserted.
    public static func all(of input: [UInt8], seeds: [UInt64] = [1, 2, 3]) -> [Chunking] {
        var result = [Chunking(name: "whole", pieces: [input])]
        result.append(Chunking(name: "bytes", pieces: input.map { [$0] }))
        for seed in seeds {
            result.append(Chunking(name: "random(\(seed))", pieces: random(input, seed: seed, empties: false)))
            result.append(Chunking(name: "random+empty(\(seed))", pieces: random(input, seed: seed, empties: true)))
        }
        return result
    }

    /// The input cut at random places (pieces of 1...64 bytes), optionally with empty pieces between.
    public static func random(_ input: [UInt8], seed: UInt64, empties: Bool) -> [[UInt8]] {
        var generator = SplitMix64(seed: seed)
        var pieces: [[UInt8]] = []
        var index = 0
        if empties { pieces.append([]) }
        while index < input.count {
            let size = Int(generator.next() % 64) + 1
            let end = min(input.count, index + size)
            pieces.append(Array(input[index..<end]))
            if empties, generator.next() % 3 == 0 { pieces.append([]) }
            index = end
        }
        if empties { pieces.append([]) }
        return pieces
    }
}

/// A small seeded generator, so random cuttings repeat run to run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
