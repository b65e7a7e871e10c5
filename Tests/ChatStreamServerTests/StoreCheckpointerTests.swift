// The store's write-ahead log is copied back into the database by a thread of its own, not by the
// committer, and stays bounded under writes that never pause (StoreCheckpointer).

import ChatStreamSQLite
import Dispatch
import Foundation
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

    @Test func theLogRestartsPastItsBoundUnderWritesThatNeverPause() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bounded.sqlite").path
        let store = try ConversationStore(path: path, logRestartPages: 64)
        // About 1,000 writes of 6 KB each from 8 writers, with no pause for the log to restart on
        // its own: without the committer's own checkpoint past the bound the log grew to 24.5 MB;
        // with it, 3.6 MB (the background copy runs every 50 ms, so the log passes 64 pages).
        Self.write(store, count: 1_000, threads: 8, tag: "b")
        let log = Self.size(path + "-wal")
        #expect(log > 0)
        #expect(log < 8_000_000, "the log grew to \(log) bytes")
        #expect(try store.read { try $0.conversationCount() } == 1_000)
    }
}
