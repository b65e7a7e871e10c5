// HistoryStore+Checkpoint: a background checkpoint copies the whole write-ahead log back, so the
// store's next write starts the log again from its beginning (what a later launch reads back at
// open). Measured by the log's size in frames after one more small write, against a store that
// did not checkpoint.

import Foundation
import Testing

@testable import ChatStreamClient

@Suite("HistoryStore background checkpoint", .blockingAllowed)
struct HistoryStoreCheckpointTests {
    static func message(_ index: Int, bytes: Int) -> OutboxMessage {
        OutboxMessage(
            clientMessageId: ChatStreamPaths.newDeviceId(), conversationId: "c\(index)",
            text: String(repeating: "w", count: bytes), createdAt: Date(), state: .pending, attempts: 0, lastError: nil)
    }

    /// The log's size in frames (`PRAGMA wal_checkpoint(PASSIVE)`'s second column).
    static func logFrames(_ store: HistoryStore) throws -> Int {
        try store.access("reading the log's size") { try $0.first("PRAGMA wal_checkpoint(PASSIVE)", [], { $0.int(1) }) }
            ?? -1
    }

    /// A store with about 150 pages written, then (when `checkpoint`) a background checkpoint
    /// waited for, then one small write; the log's size after it.
    static func framesAfterOneMoreWrite(checkpoint: Bool) async throws -> Int {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatstream-checkpoint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try HistoryStore(path: directory.appendingPathComponent("history.sqlite").path)
        for index in 0..<60 { try store.enqueue(message(index, bytes: 8_000), scope: "s") }
        if checkpoint {
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                store.checkpointInBackground { finished.resume() }
            }
        }
        try store.enqueue(message(60, bytes: 10), scope: "s")
        return try logFrames(store)
    }

    @Test func theNextWriteStartsTheLogAgainAfterABackgroundCheckpoint() async throws {
        let checkpointed = try await Self.framesAfterOneMoreWrite(checkpoint: true)
        let control = try await Self.framesAfterOneMoreWrite(checkpoint: false)
        #expect(control > 100, "the control store's log holds every write (\(control) frames)")
        #expect(checkpointed > 0 && checkpointed < 10, "\(checkpointed) frames after the checkpoint")
    }

    @Test func anInMemoryStoreHasNothingToCheckpoint() throws {
        let store = HistoryStore.inMemory()
        let ran = DispatchSemaphore(value: 0)
        store.checkpointInBackground { ran.signal() }
        // A checkpoint thread, had one started, would have finished (and signalled) by then.
        #expect(ran.wait(timeout: .now() + 0.5) == .timedOut, "an in-memory store started a checkpoint")
        try store.enqueue(Self.message(0, bytes: 10), scope: "s")
        #expect(try store.outbox(scope: "s").count == 1)
    }
}
