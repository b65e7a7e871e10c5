import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// Byte chunks as an async sequence, optionally failing after them.
struct ChunkSequence: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let chunks: [[UInt8]]
    var failure: StreamError? = nil

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: [[UInt8]]
        var index = 0
        var failure: StreamError?
        mutating func next() async throws -> [UInt8]? {
            if index < chunks.count {
                index += 1
                return chunks[index - 1]
            }
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks, failure: failure) }
}

@Suite(.blockingAllowed) struct AsyncLayerTests {
    let fixture = Array(
        try! Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/ui-message-stream/tool-round-trip.sse")))

    @Test func eventsAreTheSameAsTheSynchronousDecoder() async throws {
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        let expected = try decoder.feed(fixture) + decoder.finish()
        for chunking in Chunkings.all(of: fixture, seeds: [7]) {
            var events: [StreamEvent] = []
            for try await event in ChunkSequence(chunks: chunking.pieces).streamEvents(format: .uiMessageStream) {
                events.append(event)
            }
            #expect(events == expected, "\(chunking)")
        }
    }

    @Test func snapshotsGrowAndTheLastIsFinished() async throws {
        var snapshots: [AssembledMessage] = []
        for try await message in ChunkSequence(chunks: [fixture]).assembledMessages() {
            snapshots.append(message)
        }
        #expect(snapshots.count > 5)
        #expect(snapshots.dropLast().allSatisfy { !$0.isFinished })
        #expect(snapshots.last?.isFinished == true)
        #expect(snapshots.last?.text == "Sunny, then rain.")
        #expect(snapshots.last?.conversationId == "conv-tool")
    }

    @Test func cutStreamDeliversThePartialMessageThenThrowsTruncated() async throws {
        let cut = Array(fixture.prefix(400))
        var last: AssembledMessage? = nil
        let error = await #expect(throws: StreamError.self) {
            for try await message in ChunkSequence(chunks: [cut]).assembledMessages(format: .uiMessageStream) {
                last = message
            }
        }
        #expect(error?.kind == .truncated)
        #expect(last?.isFinished == true)
        #expect(last?.error?.code == "STREAM_TRUNCATED")
        #expect(last?.toolCalls.first?.toolName == "get_weather")
    }

    @Test func transportFailureMidStreamKeepsWhatArrived() async throws {
        let half = Array(fixture.prefix(fixture.count / 2))
        let failing = ChunkSequence(chunks: [half], failure: StreamError(.truncated, message: "connection lost"))
        var last: AssembledMessage? = nil
        await #expect(throws: StreamError.self) {
            for try await message in failing.assembledMessages() { last = message }
        }
        #expect(last?.isFinished == true)
        #expect(last?.error != nil)
        #expect(last?.toolCalls.isEmpty == false)
    }

    @Test func worksOverDataAndArraySliceChunks() async throws {
        let data = ChunkSequenceOf(chunks: [Data(fixture.prefix(100)), Data(fixture.dropFirst(100))])
        var text = ""
        for try await event in data.streamEvents() {
            if case .textDelta(_, let delta) = event { text += delta }
        }
        #expect(text == "Sunny, then rain.")
        let slices = ChunkSequenceOf(chunks: [fixture[0..<50], fixture[50...]])
        var count = 0
        for try await _ in slices.streamEvents() { count += 1 }
        #expect(count > 10)
    }
}

/// Chunks of any byte collection type as an async sequence.
struct ChunkSequenceOf<Chunk: Collection & Sendable>: AsyncSequence, Sendable where Chunk.Element == UInt8 {
    typealias Element = Chunk
    let chunks: [Chunk]
    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: [Chunk]
        var index = 0
        mutating func next() async throws -> Chunk? {
            guard index < chunks.count else { return nil }
            index += 1
            return chunks[index - 1]
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks) }
}
