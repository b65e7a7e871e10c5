import ChatStream
import ChatStreamFraming
import Foundation
import TestSupport
import Testing

/// An async sequence handing out the given chunks.
private func chunks<Chunk: Sendable>(_ pieces: [Chunk]) -> AsyncStream<Chunk> {
    AsyncStream { continuation in
        for piece in pieces { continuation.yield(piece) }
        continuation.finish()
    }
}

/// What an async sequence of JSON values handed out: each value's text and offset, and the error.
private struct Outcome: Equatable, CustomStringConvertible {
    var values: [String] = []
    var offsets: [Int] = []
    var error: FramingError?
    var description: String { "\(values) at \(offsets), error \(error.map(String.init(describing:)) ?? "none")" }
}

private func collect<S: AsyncSequence>(_ sequence: S) async -> Outcome where S.Element == JSONValueBytes {
    var outcome = Outcome()
    do {
        for try await value in sequence {
            outcome.values.append(String(decoding: value.bytes, as: UTF8.self))
            outcome.offsets.append(value.byteOffset)
        }
    } catch {
        outcome.error = error as? FramingError
    }
    return outcome
}

/// The input cut into pieces of 1 to `maxPiece` bytes (seeded), with empty pieces between some.
private func randomPieces(_ input: [UInt8], seed: UInt64, maxPiece: Int) -> [[UInt8]] {
    var generator = SplitMix64(seed: seed)
    var pieces: [[UInt8]] = []
    var index = 0
    while index < input.count {
        let end = min(input.count, index + Int(generator.next() % UInt64(maxPiece)) + 1)
        pieces.append(Array(input[index..<end]))
        if generator.next() % 5 == 0 { pieces.append([]) }
        index = end
    }
    return pieces
}

@Suite("Async JSON-array elements", .blockingAllowed)
struct AsyncJSONArrayElementTests {
    // Elements whose strings hold the bytes that end elements elsewhere (`]`, `,`, `}`, an escaped
    // quote), nesting, a scalar before `]`, whitespace everywhere, and a byte-order mark.
    static let text = "\u{FEFF} [ {\"a\":\"x],\\\"}\"} ,\n[1,[2,{}]] ,\"s,]\" , -12.5e3 ,true,null ,{\"b\":[]}\n]\n"
    static let input = Array(text.utf8)
    static let expectedValues = [
        "{\"a\":\"x],\\\"}\"}", "[1,[2,{}]]", "\"s,]\"", "-12.5e3", "true", "null", "{\"b\":[]}",
    ]
    /// Each element's offset, found by searching the input for its text (each occurs once).
    static let expectedOffsets: [Int] = expectedValues.map { value in
        let needle = Array(value.utf8)
        return (0...(input.count - needle.count)).first { Array(input[$0..<($0 + needle.count)]) == needle }!
    }

    @Test(arguments: Chunkings.all(of: input))
    func elementsAtEveryChunking(_ chunking: Chunkings.Chunking) async {
        let outcome = await collect(chunks(chunking.pieces).jsonArrayElements())
        #expect(outcome == Outcome(values: Self.expectedValues, offsets: Self.expectedOffsets))
    }

    @Test func elementsOverDataAndArraySlices() async {
        let pieces = Chunkings.random(Self.input, seed: 11, empties: true)
        let fromData = await collect(chunks(pieces.map { Data($0) }).jsonArrayElements())
        let fromSlices = await collect(chunks(pieces.map { ([0] + $0)[1...] }).jsonArrayElements())
        #expect(fromData == Outcome(values: Self.expectedValues, offsets: Self.expectedOffsets))
        #expect(fromSlices == fromData)
    }

    /// A generated array of 600 objects (about 60 kB), whole, byte by byte and at random chunk
    /// sizes up to 4 KiB: every element is handed out once, whole, at its offset.
    @Test func largeArrayWholeByteByByteAndAtRandomSizes() async {
        var text = "["
        var values: [String] = []
        var offsets: [Int] = []
        var generator = SplitMix64(seed: 5)
        for index in 0..<600 {
            if index > 0 { text += generator.next() % 2 == 0 ? ",\n" : " , " }
            let words = (0...(generator.next() % 12)).map { "w\($0)]\\\"," }.joined(separator: " ")
            let value = "{\"i\":\(index),\"text\":\"\(words)\",\"nested\":[[\(index)],{\"k\":null}]}"
            offsets.append(text.utf8.count)
            values.append(value)
            text += value
        }
        text += "]"
        let input = Array(text.utf8)
        let expected = Outcome(values: values, offsets: offsets)
        #expect(await collect(chunks([input]).jsonArrayElements()) == expected)
        #expect(await collect(chunks(input.map { [$0] }).jsonArrayElements()) == expected)
        for seed: UInt64 in 1...4 {
            let pieces = randomPieces(input, seed: seed, maxPiece: seed % 2 == 0 ? 4096 : 97)
            #expect(await collect(chunks(pieces).jsonArrayElements()) == expected, "seed \(seed)")
        }
    }

    @Test func cleanEndIsReportedByTheIterator() async throws {
        var iterator = chunks([Array("[1, 2]".utf8)]).jsonArrayElements().makeAsyncIterator()
        #expect(try await iterator.next() == JSONValueBytes(bytes: Array("1".utf8), byteOffset: 1))
        #expect(try await iterator.next() == JSONValueBytes(bytes: Array("2".utf8), byteOffset: 4))
        #expect(iterator.end == nil)
        #expect(try await iterator.next() == nil)
        #expect(iterator.end == StreamEnd(totalBytes: 6))
        #expect(try await iterator.next() == nil)
    }

    /// An array cut before `]` hands out every complete element, then throws `.truncated`.
    @Test(arguments: Chunkings.all(of: Array("[{\"a\":1},[2],\"thr".utf8)))
    func truncatedArrayThrowsAfterItsCompleteElements(_ chunking: Chunkings.Chunking) async {
        let outcome = await collect(chunks(chunking.pieces).jsonArrayElements())
        #expect(outcome.values == ["{\"a\":1}", "[2]"])
        #expect(outcome.offsets == [1, 9])
        #expect(outcome.error?.kind == .truncated)
        #expect(outcome.error?.byteOffset == 17)
    }

    @Test(arguments: [
        ("{\"a\":1}", FramingError.Kind.expectedArrayStart, 0, [String]()),
        ("[1 x]", .unexpectedByte, 3, ["1"]),
        ("[1,]", .unexpectedByte, 3, ["1"]),
        ("[1] 2", .trailingData, 4, ["1"]),
    ])
    func malformedArraysThrowAtTheirOffset(text: String, kind: FramingError.Kind, offset: Int, before: [String]) async {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let outcome = await collect(chunks(chunking.pieces).jsonArrayElements())
            #expect(outcome.values == before, "\(chunking)")
            #expect(outcome.error?.kind == kind, "\(chunking)")
            #expect(outcome.error?.byteOffset == offset, "\(chunking)")
        }
    }

    @Test func limitsComeFromTheConfiguration() async {
        let long = Array("[\"0123456789\"]".utf8)
        for chunking in Chunkings.all(of: long) {
            let outcome = await collect(
                chunks(chunking.pieces).jsonArrayElements(configuration: .init(maxValueBytes: 8)))
            #expect(outcome.error?.kind == .valueTooLarge, "\(chunking)")
            #expect(outcome.error?.byteOffset == 9, "\(chunking)")
        }
        let deep = Array("[[[[1]]]]".utf8)
        let outcome = await collect(chunks([deep]).jsonArrayElements(configuration: .init(maxDepth: 2)))
        #expect(outcome.error?.kind == .depthLimitExceeded)
        #expect(outcome.error?.byteOffset == 3)
    }

    /// The same generic adapter over the other JSON framer.
    @Test(arguments: Chunkings.all(of: Array("{\"a\":[1]} \"b\"\n[] 42".utf8)))
    func valueSequencesThroughTheGenericAdapter(_ chunking: Chunkings.Chunking) async {
        let outcome = await collect(chunks(chunking.pieces).framed(by: JSONSequenceFramer.self))
        #expect(outcome == Outcome(values: ["{\"a\":[1]}", "\"b\"", "[]", "42"], offsets: [0, 10, 14, 17]))
    }
}
