// The store's write-ahead log is copied back into the database by a thread of its own, not by the
// committer, and stays bounded under writes that never pause (StoreCheckpointer).

import ChatStreamSQLite
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import ChatStreamServer

@Suite("Checkpoints off the committer", .serialized)
struct StoreCheckpointerTests {
    /// `count` writes of `threads` concurrent writers, each a conversation with a 6 KB message.
    static func write(_ store: ConversationStore, count: Int, threads: Int, tag: String) {
        let text = String(repeating: "log page filler ", count: 400)
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for index in stride(from: thread, to: count, by: threads) {
                    _ = try? store.write { store in
                        let caller = Caller(deviceId: "device-\(tag)-\(index)")
                        let id = "\(tag)-\(index)"
                        _ = try store.createConversation(id: id, title: nil, for: caller, now: 1)
                        _ = try store.appendMessage(
                            id: "m-\(id)", role: "user", parts: [["type": "text", "text": .string(text)]], to: id,
                            now: 2)
                    }
                }
            }
        }
        group.wait()
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0
    }

    @Test func theLogIsCopiedBackWhileTheStoreIsOpenAndTheThreadEndsWithIt() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("copied.sqlite").path
        var store: ConversationStore? = try ConversationStore(path: path)
        let checkpointer = try #require(store?.checkpointer)
        #expect(checkpointer.isRunning)
        let empty = Self.size(path)
        Self.write(try #require(store), count: 120, threads: 1, tag: "a")
        // About 120 x 6 KB reached the database file while the store is open (the writer's own
        // automatic checkpoint is off, so only the checkpointer's thread can have put it there).
        #expect(eventually(within: 20) { Self.size(path) > empty + 500_000 })
        #expect(checkpointer.checkpointCount > 0)
        store = nil
        #expect(eventually(within: 5) { !checkpointer.isRunning }, "the checkpointer outlived its store")
    }

    /// Runs `body` with a store whose log restarts past 64 pages, at `path` in a fresh directory
    /// that is removed afterwards.
    static func withBoundedStore(_ name: String, _ body: (ConversationStore, _ path: String) throws -> Void) throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(name).path
        try body(try ConversationStore(path: path, logRestartPages: 64), path)
    }

    @Test func theLogRestartsPastItsBoundUnderWritesThatNeverPause() throws {
        try Self.withBoundedStore("bounded.sqlite") { store, path throws in
            // About 1,000 writes of 6 KB each from 8 writers, with no pause for the log to restart on
            // its own: without the committer's own checkpoints the log grew to 26 MB; with them,
            // 0.4-0.9 MB here, quiet or beside a CPU and disk-sync load. Past four times its bound
            // (1 MB) the committer waits for the log to restart, so it can pass that by one batch only.
            Self.write(store, count: 1_000, threads: 8, tag: "b")
            let log = Self.size(path + "-wal")
            #expect(log > 0)
            #expect(log < 4_000_000, "the log grew to \(log) bytes")
            #expect(try store.read { try $0.conversationCount() } == 1_000)
        }
    }

    /// The writer counts its log's pages after each commit (the hook that replaces the automatic
    /// checkpoint), and the count falls once a checkpoint copied the log and a write restarted it.
    @Test func theWriterCountsItsLogPagesAndTheCountFallsWhenTheLogRestarts() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = SQLiteDatabase.Options.durable
        options.automaticCheckpoint = false
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("count.sqlite").path, options: options)
        try database.execute("CREATE TABLE notes(text TEXT)")
        let text = String(repeating: "x", count: 3_000)
        for _ in 0..<40 { try database.run("INSERT INTO notes(text) VALUES (?1)", [text]) }
        let grown = try #require(database.logPages)
        #expect(grown >= 40, "\(grown) pages after 40 commits of a page each")
        try database.execute("PRAGMA wal_checkpoint(PASSIVE)")
        try database.run("INSERT INTO notes(text) VALUES (?1)", [text])
        let restarted = try #require(database.logPages)
        #expect(restarted < 5, "the log did not restart: \(restarted) pages")

        var automatic = SQLiteDatabase.Options.durable
        automatic.checksAtOpen = false
        let other = try SQLiteDatabase(path: directory.appendingPathComponent("auto.sqlite").path, options: automatic)
        #expect(other.logPages == nil)
    }

    /// The committer checkpoints itself at the bound, again only after a sixteenth of it more, and
    /// waits for the log to restart past four times it; below the bound the thread alone copies.
    @Test func theCommitterCheckpointsPastTheBoundAndWaitsPastFourTimesIt() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let checkpointer = try StoreCheckpointer(
            path: directory.appendingPathComponent("policy.sqlite").path, options: .durable, restartPages: 64)
        defer { checkpointer.close() }
        let steps: [(Int, StoreCheckpointer.AfterCommit)] = [
            (10, .nothing), (63, .nothing), (64, .checkpoint), (65, .nothing), (67, .nothing), (68, .checkpoint),
            (200, .checkpoint), (203, .nothing), (256, .restart), (259, .nothing), (260, .restart), (300, .restart),
            (2, .nothing), (64, .checkpoint),
        ]
        for (pages, expected) in steps {
            #expect(checkpointer.committed(logPages: pages) == expected, "at \(pages) pages")
        }
    }

    /// A reader that keeps an old snapshot stops every copy short of the log's end, so the log
    /// cannot restart: past four times its bound the committer waits for the reader (writes pause)
    /// instead of letting the log grow for as long as the reader stays.
    @Test func aReaderHoldingTheLogMakesTheCommitterWaitPastFourTimesTheBound() throws {
        try Self.withBoundedStore("held.sqlite") { store, path throws in
            Self.write(store, count: 10, threads: 1, tag: "before")
            var options = SQLiteDatabase.Options.durable
            options.readOnly = true
            let reader = try SQLiteDatabase(path: path, options: options)
            try reader.execute("BEGIN")
            #expect(try reader.first("SELECT count(*) FROM conversations", [], { $0.int(0) }) == 10)
            let released = Mutex<ContinuousClock.Instant?>(nil)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(400)) {
                released.withLock { $0 = .now }
                try? reader.execute("COMMIT")
            }
            // About 300 writes of 6 KB from one writer: some 1,200 log pages if nothing waited.
            Self.write(store, count: 300, threads: 1, tag: "during")
            let log = Self.size(path + "-wal")
            #expect(released.withLock { $0 } != nil, "the writes did not wait for the reader")
            #expect(log < 2_000_000, "the log grew to \(log) bytes while a reader held it")
            #expect(try store.read { try $0.conversationCount() } == 310)
        }
    }
}
