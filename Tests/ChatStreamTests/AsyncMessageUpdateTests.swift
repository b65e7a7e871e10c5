import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// The updates rung: each event with the message after it, then the final messages; the same as
/// applying the synchronous decoder's events to an assembler one by one, at every chunking.
@Suite(.blockingAllowed) struct AsyncMessageUpdateTests {
    let fixture = Array(
        try! Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/ui-message-stream/tool-round-trip.sse")))

    /// The updates an assembler fed the synchronous decoder's events gives, event by event.
    func expectedUpdates(_ bytes: [UInt8]) throws -> [MessageUpdate] {
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        var assembler = MessageAssembler()
        var updates: [MessageUpdate] = []
        for event in try decoder.feed(bytes) + decoder.finish() {
            assembler.apply(event)
            updates.append(MessageUpdate(event: event, message: assembler.message))
        }
        return updates + assembler.finish().map { MessageUpdate(event: nil, message: $0) }
    }

    @Test func updatesAreTheEventsWithTheMessageAfterEachAtEveryChunking() async throws {
        let expected = try expectedUpdates(fixture)
        #expect(expected.count > 10)
        for chunking in Chunkings.all(of: fixture, seeds: [3, 11]) {
            var updates: [MessageUpdate] = []
            for try await update in ChunkSequence(chunks: chunking.pieces).messageUpdates(format: .uiMessageStream) {
                updates.append(update)
            }
            #expect(updates == expected, "\(chunking)")
        }
    }

    @Test func theLastUpdateIsTheFinalMessageAndEqualsTheFinalMessagesRung() async throws {
        var updates: [MessageUpdate] = []
        for try await update in ChunkSequence(chunks: [fixture]).messageUpdates() { updates.append(update) }
        var finals: [AssembledMessage] = []
        for try await message in ChunkSequence(chunks: [fixture]).finalMessages() { finals.append(message) }
        #expect(updates.filter(\.isFinal).map(\.message) == finals)
        #expect(updates.last?.isFinal == true)
        #expect(updates.dropLast().allSatisfy { !$0.isFinal && !$0.message.isFinished })
        #expect(updates.last?.message.text == "Sunny, then rain.")
    }

    @Test func snapshotsRungIsTheUpdatesWithoutTheirEvents() async throws {
        var snapshots: [AssembledMessage] = []
        for try await message in ChunkSequence(chunks: [fixture]).assembledMessages() { snapshots.append(message) }
        var messages: [AssembledMessage] = []
        for try await update in ChunkSequence(chunks: [fixture]).messageUpdates() {
            if case .choice? = update.event { continue }
            messages.append(update.message)
        }
        #expect(snapshots == messages)
    }

    @Test func aCutStreamHandsOverTheFinalMessageThenThrows() async throws {
        let cut = Array(fixture.prefix(400))
        var updates: [MessageUpdate] = []
        let error = await #expect(throws: StreamError.self) {
            for try await update in ChunkSequence(chunks: [cut]).messageUpdates(format: .uiMessageStream) {
                updates.append(update)
            }
        }
        #expect(error?.kind == .truncated)
        let final = try #require(updates.last)
        #expect(final.isFinal)
        #expect(final.message.error?.code == "STREAM_TRUNCATED")
        #expect(final.message.toolCalls.first?.toolName == "get_weather")
        #expect(updates.dropLast().allSatisfy { $0.event != nil })
    }

    @Test func aBaseFailureIsThrownAsItWasAfterTheFinalMessage() async throws {
        struct Broken: Error, Equatable {}
        let half = Array(fixture.prefix(fixture.count / 2))
        var iterator = ChunksThenError(chunks: [half], failure: Broken()).messageUpdates().makeAsyncIterator()
        var last: MessageUpdate?
        do {
            while let update = try await iterator.next() { last = update }
            Issue.record("the base's error was not thrown")
        } catch {
            #expect(error is Broken)
        }
        #expect(last?.isFinal == true)
        #expect(last?.message.error != nil)
        #expect(last?.message.toolCalls.isEmpty == false)
        #expect(try await iterator.next() == nil)
    }
}

/// Byte chunks, then an error of any type.
private struct ChunksThenError<Failure: Error & Sendable>: AsyncSequence, Sendable {
    let chunks: [[UInt8]]
    let failure: Failure

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: [[UInt8]]
        var failure: Failure?
        mutating func next() async throws -> [UInt8]? {
            if !chunks.isEmpty { return chunks.removeFirst() }
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks, failure: failure) }
}
