import Foundation
import TestSupport
import Testing

@testable import ChatStream
@testable import ChatStreamLive

/// The one vocabulary of the decoders: `StreamDecoder`, `AnyStreamDecoder`, `MessageDecoder` and
/// `ConversationEventDecoder` are `IncrementalDecoder`s as the framers are, so one generic
/// driver feeds any of them; what each gives does not depend on the chunking, and `finish(into:)`
/// reports the bytes fed and what the end dropped.
@Suite(.blockingAllowed) struct IncrementalDecoderTests {
    /// A UI message stream with text, a tool call and its terminator.
    static let uiStream = Array(
        """
        data: {"type":"start","messageId":"m1"}

        data: {"type":"text-start","id":"t1"}

        data: {"type":"text-delta","id":"t1","delta":"Hel"}

        data: {"type":"text-delta","id":"t1","delta":"lo, \\u00e9t\\u00e9"}

        data: {"type":"text-end","id":"t1"}

        data: {"type":"finish","finishReason":"stop"}

        data: [DONE]


        """.utf8)

    /// Feeds `pieces` to a new decoder through the protocol alone; the outputs and the report.
    func drive<D: IncrementalDecoder>(
        _ make: () -> D, _ pieces: [[UInt8]]
    ) throws -> (outputs: [D.Output], end: StreamEnd) {
        var decoder = make()
        var outputs: [D.Output] = []
        for piece in pieces { try decoder.feed(piece, into: &outputs) }
        let end = try decoder.finish(into: &outputs)
        return (outputs, end)
    }

    @Test func streamDecoderGivesTheSameEventsThroughTheProtocolAtEveryChunking() throws {
        var reference = StreamDecoder<UIMessageStreamDialect>()
        var expected: [StreamEvent] = []
        try reference.feed(Self.uiStream, into: &expected)
        try reference.finish(into: &expected)
        #expect(expected.contains(.textDelta(id: "t1", delta: "Hel")))
        #expect(expected.contains(.finish(reason: .stop, rawReason: "stop")))

        for chunking in Chunkings.all(of: Self.uiStream) {
            let typed = try drive({ StreamDecoder<UIMessageStreamDialect>() }, chunking.pieces)
            #expect(typed.outputs == expected, "\(chunking)")
            #expect(typed.end == StreamEnd(totalBytes: Self.uiStream.count), "\(chunking)")
            let detected = try drive({ AnyStreamDecoder(format: nil) }, chunking.pieces)
            #expect(detected.outputs == expected, "detected, \(chunking)")
            #expect(detected.end == StreamEnd(totalBytes: Self.uiStream.count), "detected, \(chunking)")
        }
    }

    @Test func aSecondFinishAddsNothingAndReportsTheSameEnd() throws {
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        var events: [StreamEvent] = []
        try decoder.feed(Self.uiStream, into: &events)
        let first = try decoder.finish(into: &events)
        let count = events.count
        let second = try decoder.finish(into: &events)
        #expect(first == second)
        #expect(events.count == count)
    }

    @Test func aCutStreamStillThrowsTruncatedAfterItsEvents() throws {
        let cut = Array(Self.uiStream.prefix(Self.uiStream.count - "data: [DONE]\n\n\n".utf8.count))
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        var events: [StreamEvent] = []
        try decoder.feed(cut, into: &events)
        #expect(events.contains(.textDelta(id: "t1", delta: "Hel")))
        #expect(throws: StreamError.self) { _ = try decoder.finish(into: &events) }
        #expect((try? decoder.finish(into: &events)) == nil, "the error is thrown again")
    }

    @Test func messageDecoderAppendsItsMessagesOnlyAtTheEnd() throws {
        for chunking in Chunkings.all(of: Self.uiStream) {
            var decoder = MessageDecoder<UIMessageStreamDialect>()
            var messages: [AssembledMessage] = []
            for piece in chunking.pieces {
                try decoder.feed(piece, into: &messages)
                #expect(messages.isEmpty, "\(chunking)")
            }
            let end = decoder.finish(into: &messages)
            #expect(messages.map(\.text) == ["Hello, été"], "\(chunking)")
            #expect(messages.allSatisfy { $0.error == nil }, "\(chunking)")
            #expect(end == StreamEnd(totalBytes: Self.uiStream.count), "\(chunking)")
        }
        // Cut before the terminator: no throw, the text kept, the truncation recorded.
        let cut = Array(Self.uiStream.prefix(Self.uiStream.count - "data: [DONE]\n\n\n".utf8.count))
        var decoder = MessageDecoder<UIMessageStreamDialect>()
        var messages: [AssembledMessage] = []
        try decoder.feed(cut, into: &messages)
        let end = decoder.finish(into: &messages)
        #expect(messages.map(\.text) == ["Hello, été"])
        #expect(messages.first?.error != nil)
        #expect(decoder.failure?.kind == .truncated)
        #expect(end.totalBytes == cut.count)
    }

    @Test func conversationEventDecoderReportsAnEventCutByTheEnd() throws {
        let whole = try ProjectPaths.fixtureBytes("live-events/home-all-types.sse")
        let tail = Array(#"data: {"type":"message.created""#.utf8)
        let input = whole + tail
        var expected: [ConversationEvent] = []
        var reference = ConversationEventDecoder(format: .home)
        try reference.feed(whole, into: &expected)
        #expect(!expected.isEmpty)
        for chunking in Chunkings.all(of: input) {
            let outcome = try drive({ ConversationEventDecoder(format: .home) }, chunking.pieces)
            #expect(outcome.outputs == expected, "\(chunking)")
            #expect(outcome.end.totalBytes == input.count, "\(chunking)")
            #expect(outcome.end.droppedFromOffset == whole.count, "\(chunking)")
            #expect(outcome.end.droppedBytes == tail.count, "\(chunking)")
        }
    }

    /// Hands `pieces` out one by one as an async sequence of chunks.
    func chunks(_ pieces: [[UInt8]]) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            for piece in pieces { continuation.yield(piece) }
            continuation.finish()
        }
    }

    @Test func decodedUsingRunsAnyDecoderOverChunksAsTheSyncFormDoes() async throws {
        let expected = try drive({ StreamDecoder<UIMessageStreamDialect>() }, [Self.uiStream]).outputs
        for chunking in Chunkings.all(of: Self.uiStream) {
            var events: [StreamEvent] = []
            var iterator = chunks(chunking.pieces).decoded(using: StreamDecoder<UIMessageStreamDialect>())
                .makeAsyncIterator()
            while let event = try await iterator.next() { events.append(event) }
            #expect(events == expected, "\(chunking)")
            #expect(iterator.end == StreamEnd(totalBytes: Self.uiStream.count), "\(chunking)")

            var messages: [AssembledMessage] = []
            for try await message in chunks(chunking.pieces).decoded(using: MessageDecoder<UIMessageStreamDialect>()) {
                messages.append(message)
            }
            #expect(messages.map(\.text) == ["Hello, été"], "\(chunking)")
        }
    }

    @Test func decodedUsingHandsOutTheEventsBeforeTheErrorAndEachIterationDecodesAfresh() async throws {
        let cut = Array(Self.uiStream.prefix(Self.uiStream.count - "data: [DONE]\n\n\n".utf8.count))
        let sequence = chunks([cut]).decoded(using: StreamDecoder<UIMessageStreamDialect>())
        var events: [StreamEvent] = []
        var iterator = sequence.makeAsyncIterator()
        await #expect(throws: StreamError.self) {
            while let event = try await iterator.next() { events.append(event) }
        }
        #expect(events.contains(.textDelta(id: "t1", delta: "Hel")))
        #expect(try await iterator.next() == nil, "the sequence ends after its error")

        // A live stream cut inside an event: dropped and reported, or thrown when asked.
        let live = try ProjectPaths.fixtureBytes("live-events/home-all-types.sse") + Array("data: {".utf8)
        var quiet = chunks([live]).decoded(using: ConversationEventDecoder(format: .home)).makeAsyncIterator()
        var count = 0
        while try await quiet.next() != nil { count += 1 }
        #expect(count > 0)
        #expect(quiet.end?.droppedBytes == "data: {".utf8.count)
        var strict = chunks([live]).decoded(using: ConversationEventDecoder(format: .home), throwsOnTruncation: true)
            .makeAsyncIterator()
        var strictCount = 0
        await #expect(throws: FramingError.self) {
            while try await strict.next() != nil { strictCount += 1 }
        }
        #expect(strictCount == count, "every event before the cut is handed out first")
    }
}
