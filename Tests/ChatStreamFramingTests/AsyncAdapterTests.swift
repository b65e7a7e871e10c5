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

@Suite("Async adapters")
struct AsyncAdapterTests {
    static let sse = bytes("id: 1\ndata: a\r\n\r\nevent: t\ndata: b\ndata: c\n\n")
    static let expected = [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(type: "t", data: "b\nc", id: "1")]

    @Test(arguments: Chunkings.all(of: sse))
    func serverSentEventsOverByteArrays(_ chunking: Chunkings.Chunking) async throws {
        var events: [ServerSentEvent] = []
        for try await event in chunks(chunking.pieces).serverSentEvents() { events.append(event) }
        #expect(events == Self.expected)
    }

    @Test func serverSentEventsOverArraySlicesAndData() async throws {
        let pieces = Chunkings.random(Self.sse, seed: 7, empties: true)
        var fromSlices: [ServerSentEvent] = []
        for try await event in chunks(pieces.map { ([0] + $0)[1...] }).serverSentEvents() { fromSlices.append(event) }
        var fromData: [ServerSentEvent] = []
        for try await event in chunks(pieces.map { Data($0) }).serverSentEvents() { fromData.append(event) }
        #expect(fromSlices == Self.expected)
        #expect(fromData == Self.expected)
    }

    @Test func truncatedStreamEndsNormallyAndReportsIt() async throws {
        var iterator = chunks([bytes("data: a\n\ndata: b")]).serverSentEvents().makeAsyncIterator()
        #expect(try await iterator.next() == ServerSentEvent(data: "a"))
        #expect(iterator.end == nil)
        #expect(try await iterator.next() == nil)
        #expect(iterator.end == StreamEnd(totalBytes: 16, droppedBytes: 7, droppedFromOffset: 9))
        #expect(try await iterator.next() == nil)
    }

    @Test func truncatedStreamThrowsWhenAsked() async throws {
        var events: [ServerSentEvent] = []
        var caught: FramingError?
        do {
            for try await event in chunks([bytes("data: a\n\ndata: b\n")]).serverSentEvents(throwsOnTruncation: true) {
                events.append(event)
            }
        } catch let error as FramingError {
            caught = error
        }
        #expect(events == [ServerSentEvent(data: "a")])
        #expect(caught?.kind == .truncated)
        #expect(caught?.byteOffset == 9)
        var clean: [ServerSentEvent] = []
        for try await event in chunks([bytes("data: a\n\n")]).serverSentEvents(throwsOnTruncation: true) {
            clean.append(event)
        }
        #expect(clean == [ServerSentEvent(data: "a")])
    }

    /// `nextOutputs()` hands over a chunk's outputs at once (what `next()` left of them first),
    /// reads on past chunks that complete none, and throws after the outputs before an error.
    @Test func nextOutputsHandsOverAChunksOutputsAtOnce() async throws {
        let pieces = [
            bytes("data: a\n\ndata: b\n\ndata: c\n\n"), bytes("data: d"), bytes("\n\n"),
            bytes("data: e\n\ndata: 0123456789\n\n"),
        ]
        var iterator = chunks(pieces).serverSentEvents(configuration: .init(maxLineBytes: 10)).makeAsyncIterator()
        #expect(try await iterator.next() == ServerSentEvent(data: "a"))
        #expect(
            try await iterator.nextOutputs().map(Array.init) == [
                ServerSentEvent(data: "b"), ServerSentEvent(data: "c"),
            ])
        #expect(try await iterator.nextOutputs().map(Array.init) == [ServerSentEvent(data: "d")])
        #expect(try await iterator.nextOutputs().map(Array.init) == [ServerSentEvent(data: "e")])
        await #expect(throws: FramingError.self) { _ = try await iterator.nextOutputs() }
        #expect(try await iterator.nextOutputs() == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test func limitErrorsSurfaceFromTheSequence() async throws {
        var caught: FramingError?
        do {
            for try await _ in chunks([bytes("data: 0123456789\n\n")]).serverSentEvents(
                configuration: .init(maxLineBytes: 4))
            {}
        } catch let error as FramingError {
            caught = error
        }
        #expect(caught?.kind == .lineTooLong)
    }

    @Test func ndjsonLinesOverDataAndSlices() async throws {
        let input = bytes("{\"a\":1}\r\n\n{\"b\":2}")
        for pieces in Chunkings.all(of: input).map(\.pieces) {
            var lines: [[UInt8]] = []
            for try await line in chunks(pieces.map { Data($0) }).ndjsonLines() { lines.append(line.bytes) }
            #expect(lines == [bytes("{\"a\":1}"), bytes("{\"b\":2}")])
            var sliceLines: [[UInt8]] = []
            for try await line in chunks(pieces.map { $0[...] }).ndjsonLines() { sliceLines.append(line.bytes) }
            #expect(sliceLines == lines)
        }
    }

    @Test func dataStreamV4PartsOverByteArraysAndData() async throws {
        let input = bytes("0:\"Hel\"\n0:\"lo\"\r\nd:{}")
        for pieces in Chunkings.all(of: input).map(\.pieces) {
            var parts: [String] = []
            for try await part in chunks(pieces).dataStreamV4Parts() {
                parts.append(part.code + String(decoding: part.payload, as: UTF8.self))
            }
            #expect(parts == ["0\"Hel\"", "0\"lo\"", "d{}"])
            var fromData: [String] = []
            for try await part in chunks(pieces.map { Data($0) }).dataStreamV4Parts() { fromData.append(part.code) }
            #expect(fromData == ["0", "0", "d"])
        }
    }
}
