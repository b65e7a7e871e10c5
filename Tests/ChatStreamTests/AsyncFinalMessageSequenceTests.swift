// `bytes.finalMessages(format:)` against its two oracles on a stream of every format: the
// synchronous MessageDecoder of the format's dialect, and the final messages (and the error)
// of `assembledMessages(format:)`, event by event; whole, byte by byte and at random chunkings,
// with the format given and detected. Then streams that are cut, that fail below the bytes, and
// tasks that are cancelled: what arrived is handed over, then the error is thrown.

import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// What an async sequence of messages handed over, and what it threw.
private struct Outcome: Equatable, CustomStringConvertible {
    enum Thrown: Equatable {
        case nothing
        case stream(StreamError)
        case cancellation
        case other(String)

        init(_ error: (any Error)?) {
            switch error {
            case nil: self = .nothing
            case let error as StreamError: self = .stream(error)
            case is CancellationError: self = .cancellation
            case let error?: self = .other(String(describing: error))
            }
        }
    }

    var messages: [AssembledMessage] = []
    var thrown = Thrown.nothing
    /// Whether `next()` returned nil after the error (the iteration ended).
    var endedAfterTheError = true

    var description: String { "\(thrown); " + messages.map(\.jsonValue.jsonText).joined(separator: "\n") }
}

/// Iterates `sequence` to its end or its error (then once more), keeping the messages for which
/// `keep` holds.
private func collect<Messages: AsyncSequence>(
    _ sequence: Messages, keep: (AssembledMessage) -> Bool = { _ in true }
) async -> Outcome where Messages.Element == AssembledMessage {
    var outcome = Outcome()
    var iterator = sequence.makeAsyncIterator()
    do {
        while let message = try await iterator.next() {
            if keep(message) { outcome.messages.append(message) }
        }
    } catch {
        outcome.thrown = Outcome.Thrown(error)
        do {
            outcome.endedAfterTheError = try await iterator.next() == nil
        } catch {
            outcome.endedAfterTheError = false
        }
    }
    return outcome
}

/// The final messages of `assembledMessages(format:)` (the event path) and what it threw.
private func eventPath<Chunks: AsyncSequence>(_ chunks: Chunks, format: StreamFormat?) async -> Outcome
where Chunks.Element: Collection, Chunks.Element.Element == UInt8 {
    await collect(chunks.assembledMessages(format: format), keep: \.isFinished)
}

/// Byte chunks as an async sequence that lets other tasks run every 64 chunks (a stream cut
/// byte by byte would otherwise hold a thread of the shared pool for seconds, starving the
/// tests that wait on timers).
private struct Chunks: AsyncSequence, Sendable {
    let chunks: [[UInt8]]

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: [[UInt8]]
        var index = 0
        mutating func next() async -> [UInt8]? {
            guard index < chunks.count else { return nil }
            if index % 64 == 63 { await Task.yield() }
            index += 1
            return chunks[index - 1]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks) }
}

/// Byte chunks as an async sequence that throws `failure` after them (a transport error).
private struct FailingChunks: AsyncSequence, Sendable {
    let chunks: [[UInt8]]
    let failure: any Error & Sendable

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: [[UInt8]]
        let failure: any Error & Sendable
        var index = 0
        mutating func next() async throws -> [UInt8]? {
            guard index < chunks.count else { throw failure }
            index += 1
            return chunks[index - 1]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks, failure: failure) }
}

private struct ConnectionReset: Error, Sendable, CustomStringConvertible {
    var description: String { "connection reset by peer" }
}

/// The same chunk, forever (up to `limit`), never looking at cancellation: the base sequence of
/// a transport that does not stop when its task is cancelled. Says so on `pulled` once it has
/// handed over two chunks.
private struct EndlessChunks: AsyncSequence, Sendable {
    let chunk: [UInt8]
    let limit: Int
    let pulled: AsyncStream<Void>.Continuation

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunk: [UInt8]
        let limit: Int
        let pulled: AsyncStream<Void>.Continuation
        var count = 0
        mutating func next() async -> [UInt8]? {
            guard count < limit else { return nil }
            count += 1
            if count == 2 { pulled.yield() }
            if count % 64 == 0 { await Task.yield() }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunk: chunk, limit: limit, pulled: pulled) }
}

/// One chunk, then a wait that only cancellation ends (`Task.sleep` throws CancellationError):
/// the base sequence of a transport that honours cancellation. Says so on `waiting` when the
/// wait begins (the chunk has been decoded by then).
private struct ChunkThenWait: AsyncSequence, Sendable {
    let chunk: [UInt8]
    let waiting: AsyncStream<Void>.Continuation

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunk: [UInt8]
        let waiting: AsyncStream<Void>.Continuation
        var sent = false
        mutating func next() async throws -> [UInt8]? {
            if !sent {
                sent = true
                return chunk
            }
            waiting.yield()
            try await Task.sleep(for: .seconds(600))
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunk: chunk, waiting: waiting) }
}

/// Counts the chunks pulled from it (its iterator is used in one task only).
private final class PullCounter {
    var pulls = 0
}

private struct CountedChunks: AsyncSequence {
    let chunks: [[UInt8]]
    let counter: PullCounter

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: [[UInt8]]
        let counter: PullCounter
        mutating func next() async -> [UInt8]? {
            counter.pulls += 1
            return counter.pulls <= chunks.count ? chunks[counter.pulls - 1] : nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks, counter: counter) }
}

private func sse(_ payloads: [String]) -> [UInt8] {
    Array(payloads.map { "data: \($0)\n\n" }.joined().utf8)
}

@Suite(.blockingAllowed) struct AsyncFinalMessageSequenceTests {
    // MARK: - Against the oracles

    @Test(arguments: StreamCorpus.all)
    func givesTheSynchronousDecodersMessagesAndTheEventPathsFinalsAtEveryChunking(_ stream: CorpusStream) async throws {
        let detected = try #require(stream.detectedFormat)
        for format in [stream.format, nil] {
            let typed = StreamCorpus.messageDecoder(format ?? detected, [stream.bytes])
            let expected = await eventPath(Chunks(chunks: [stream.bytes]), format: format)
            // The oracles agree with each other.
            #expect(expected.messages == typed.messages)
            #expect(expected.thrown == (typed.failure.map { .stream($0) } ?? .nothing))
            for (chunking, pieces) in stream.chunkings {
                let result = await collect(Chunks(chunks: pieces).finalMessages(format: format))
                #expect(result == expected, "\(chunking), format \(format?.rawValue ?? "detected")")
            }
        }
    }

    @Test func onlyFinalMessagesComeOutOneForEachChoice() async throws {
        let fixture = try #require(StreamCorpus.all.first { $0.name == "tool-round-trip.sse" })
        let replies = await collect(Chunks(chunks: [fixture.bytes]).finalMessages())
        #expect(replies.thrown == .nothing)
        #expect(replies.messages.count == 1)
        #expect(replies.messages.first?.isFinished == true)
        #expect(replies.messages.first?.text == "Sunny, then rain.")
        #expect(replies.messages.first?.conversationId == "conv-tool")
        let choices = try #require(StreamCorpus.all.first { $0.name == "multiple_choices_n3.sse" })
        let three = await collect(Chunks(chunks: [choices.bytes]).finalMessages())
        #expect(three.messages.map(\.choice) == [0, 1, 2])
        #expect(three.messages.allSatisfy { $0.isFinished })
    }

    @Test func iteratorTellsTheFormatAndWhatTheDecoderSkipped() async throws {
        let input = sse([
            #"{"type":"text-delta","id":"a","delta":"one "}"#, #"{"type":"text-delta","id":"a"}"#,
            #"{"type":"text-delta","id":"a","delta":"two"}"#, "[DONE]",
        ])
        let sequence = Chunks(chunks: [input]).finalMessages(configuration: .init(lenient: true))
        var iterator = sequence.makeAsyncIterator()
        #expect(iterator.format == nil)
        let reply = try await iterator.next()
        #expect(reply?.text == "one two")
        #expect(iterator.format == .uiMessageStream)
        #expect(iterator.decoder.skippedErrors.map(\.field) == ["delta"])
        #expect(try await iterator.next() == nil)
    }

    @Test func worksOverDataAndArraySliceChunks() async throws {
        let fixture = try #require(StreamCorpus.all.first { $0.name == "multibyte.sse" }).bytes
        let expected = StreamCorpus.messageDecoder(.uiMessageStream, [fixture]).messages
        let data = ChunkSequenceOf(chunks: [Data(fixture.prefix(33)), Data(fixture.dropFirst(33))])
        #expect(await collect(data.finalMessages()).messages == expected)
        let slices = ChunkSequenceOf(chunks: [fixture[0..<50], fixture[50...]])
        #expect(await collect(slices.finalMessages()).messages == expected)
    }

    // MARK: - Cut and failing streams

    /// Complete streams of every format, to cut.
    static let complete = StreamCorpus.all.filter {
        ["text-only.sse", "tool-round-trip.sse", "multibyte.sse", "ts_tool_use_response.sse", "single_tool_call.sse"]
            .contains($0.name) || $0.name == "dialect test"
    }

    @Test(arguments: complete)
    func aCutStreamHandsOverWhatArrivedThenThrows(_ stream: CorpusStream) async throws {
        let whole = StreamCorpus.messageDecoder(stream.format, [stream.bytes])
        #expect(whole.failure == nil)
        for fraction in [0.25, 0.5, 0.9] {
            let cut = Array(stream.bytes.prefix(Int(Double(stream.bytes.count) * fraction)))
            let expected = await eventPath(Chunks(chunks: [cut]), format: stream.format)
            let result = await collect(
                Chunks(chunks: Chunkings.random(cut, seed: 5, empties: true)).finalMessages())
            #expect(result == expected, "cut at \(fraction)")
            guard case .stream(let error) = result.thrown else {
                Issue.record("a cut stream must throw a StreamError, not \(result.thrown)")
                continue
            }
            // A truncation; or, cut inside the last line of a line format, malformed JSON.
            let lines = stream.format == .ndjson || stream.format == .aiSDKv4
            #expect(error.kind == .truncated || error.kind == .malformed && lines)
            let reply = try #require(result.messages.first)
            #expect(reply.isFinished && reply.error == error.info)
            #expect(whole.messages.first?.text.hasPrefix(reply.text) == true, "what arrived, no more")
            #expect(result.endedAfterTheError)
        }
    }

    @Test func aMalformedEventStopsTheStreamKeepingTheMessageBeforeIt() async throws {
        let fixture = try #require(StreamCorpus.all.first { $0.name == "malformed.sse" }).bytes
        let result = await collect(Chunks(chunks: fixture.map { [$0] }).finalMessages())
        guard case .stream(let error) = result.thrown else {
            Issue.record("expected a StreamError, got \(result.thrown)")
            return
        }
        #expect(error.kind == .malformed && error.byteOffset != nil)
        #expect(result.messages.first?.jsonValue.jsonText.contains("\"before\"") == true)
        #expect(result.messages.first?.error == error.info)
        #expect(result == (await eventPath(Chunks(chunks: [fixture]), format: nil)))
    }

    @Test func aTransportErrorIsRecordedInTheMessageThenRethrownAsItCame() async throws {
        let fixture = try #require(StreamCorpus.all.first { $0.name == "tool-round-trip.sse" }).bytes
        let half = Chunkings.random(Array(fixture.prefix(fixture.count / 2)), seed: 3, empties: false)
        let failures: [any Error & Sendable] = [
            ConnectionReset(), StreamError(.remote, message: "gateway", code: "502"),
        ]
        for failure in failures {
            let chunks = FailingChunks(chunks: half, failure: failure)
            let result = await collect(chunks.finalMessages(format: .uiMessageStream))
            #expect(result == (await eventPath(chunks, format: .uiMessageStream)))
            #expect(result.thrown == Outcome.Thrown(failure))
            let reply = try #require(result.messages.first)
            #expect(reply.isFinished)
            #expect(reply.error == StreamError(converting: failure).info)
            #expect(reply.toolCalls.first?.toolName == "get_weather")
            #expect(result.endedAfterTheError)
        }
        // Before the format is known: nothing decoded, the error recorded all the same.
        let early = FailingChunks(chunks: [Array("da".utf8)], failure: ConnectionReset())
        let result = await collect(early.finalMessages())
        #expect(result == (await eventPath(early, format: nil)))
        #expect(result.messages.count == 1 && result.messages[0].error?.message.contains("connection reset") == true)
    }

    // MARK: - Cancellation

    @Test func cancellingTheTaskStopsABaseThatIgnoresCancellation() async throws {
        let delta = sse([#"{"type":"text-delta","id":"a","delta":"more "}"#])
        // Unstopped, this would take seconds and end in a truncation, not a cancellation.
        let limit = 1_000_000
        let (pulled, continuation) = AsyncStream.makeStream(of: Void.self)
        let chunks = EndlessChunks(chunk: delta, limit: limit, pulled: continuation)
        let task = Task { await collect(chunks.finalMessages(format: .uiMessageStream)) }
        for await _ in pulled { break }
        task.cancel()
        let result = await task.value
        #expect(result.thrown == .cancellation)
        let reply = try #require(result.messages.first)
        #expect(reply.text.hasPrefix("more more "))
        #expect(reply.text.count < limit * 5)
        #expect(reply.error == StreamError(converting: CancellationError()).info)
        #expect(result.endedAfterTheError)
    }

    @Test func aBaseThatThrowsOnCancellationIsHandledAsOnTheEventPath() async throws {
        let first = sse([#"{"type":"start","messageId":"m"}"#, #"{"type":"text-delta","id":"a","delta":"so far"}"#])
        let (waiting, continuation) = AsyncStream.makeStream(of: Void.self)
        let ours = Task { await collect(ChunkThenWait(chunk: first, waiting: continuation).finalMessages()) }
        let events = Task { await eventPath(ChunkThenWait(chunk: first, waiting: continuation), format: nil) }
        var count = 0
        for await _ in waiting {
            count += 1
            if count == 2 { break }  // both have decoded the chunk and wait for the next
        }
        ours.cancel()
        events.cancel()
        let result = await ours.value
        #expect(result.thrown == .cancellation)
        #expect(result.messages.first?.text == "so far")
        #expect(result.messages.first?.error != nil)
        #expect(result == (await events.value))
    }

    @Test func aTaskCancelledBeforeReadingPullsNothing() async throws {
        let fixture = try #require(StreamCorpus.all.first { $0.name == "text-only.sse" }).bytes
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let counter = PullCounter()
            let result = await collect(CountedChunks(chunks: [fixture], counter: counter).finalMessages())
            return (result, counter.pulls)
        }
        let (result, pulls) = await task.value
        #expect(pulls == 0)
        #expect(result.thrown == .cancellation)
        #expect(result.messages.count == 1)
        let reply = try #require(result.messages.first)
        #expect(reply.parts.isEmpty)
        #expect(reply.error == StreamError(converting: CancellationError()).info)
    }
}
