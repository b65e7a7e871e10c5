// What a write keeps in memory and writes back once: a conversation's stored bytes (folded into
// its touch, else written before a quota reads them or the write commits) and the store-wide
// sequence (handed from write to write in a batch and saved once before the commit).

import ChatStream
import Foundation
import Testing

@testable import ChatStreamServer

@Suite("Store bookkeeping", .blockingAllowed)
struct StoreBookkeepingTests {
    /// Each conversation's `stored_bytes` and the sum of its messages' sizes, as the file holds them.
    static func storedBytes(_ store: ConversationStore) throws -> [String: (stored: Int, messages: Int)] {
        let rows = try store.read { store in
            try store.database.query(
                """
                SELECT c.id, c.stored_bytes, (SELECT coalesce(sum(size), 0) FROM messages m WHERE m.conversation_id = c.id)
                FROM conversations c
                """
            ) { ($0.text(0), $0.int(1), $0.int(2)) }
        }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, (stored: $0.1, messages: $0.2)) })
    }

    static func text(_ text: String) -> [JSONTree] { [["type": "text", "text": .string(text)]] }

    @Test func storedBytesFollowEveryChangeOfTheMessages() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ConversationStore(path: directory.appendingPathComponent("bytes.sqlite").path)
        let caller = Caller(deviceId: "device-a")
        // A chat: two messages, then the touch that stores their bytes.
        let (first, usageSeen) = try store.write { store in
            _ = try store.createConversation(id: "a", title: nil, for: caller, now: 1)
            try store.appendMessage(id: "m1", role: "user", parts: Self.text("hello"), to: "a", now: 1)
            // A quota read inside the write sees the bytes not stored yet.
            let usage = try store.usage(of: caller.ownerKey).bytes
            let reply = try store.appendMessage(
                id: "m2", role: "assistant", parts: Self.text("hello there"), to: "a", now: 1)
            try store.touch("a", now: 2)
            return (reply.sequence, usage)
        }
        var bytes = try Self.storedBytes(store)
        #expect(bytes.keys.sorted() == ["a"])
        #expect(bytes["a"]?.stored == bytes["a"]?.messages)
        #expect(usageSeen == JSONTree.array(Self.text("hello")).jsonText.utf8.count)
        // Messages appended with no touch: the write's end stores them.
        try store.write { store in
            try store.appendMessage(id: "m3", role: "user", parts: Self.text("more"), to: "a", now: 3)
            _ = try store.createConversation(id: "b", title: nil, for: caller, now: 3)
            try store.appendMessage(id: "m4", role: "user", parts: Self.text("in b"), to: "b", now: 3)
        }
        bytes = try Self.storedBytes(store)
        #expect(bytes.keys.sorted() == ["a", "b"])
        #expect(bytes["a"]?.stored == bytes["a"]?.messages)
        #expect(bytes["b"]?.stored == bytes["b"]?.messages)
        #expect((bytes["b"]?.stored ?? 0) > 0)
        // Parts replaced with longer ones, then messages deleted.
        try store.write { store in
            try store.setParts(Self.text(String(repeating: "x", count: 500)), ofMessage: first)
        }
        bytes = try Self.storedBytes(store)
        #expect(bytes["a"]?.stored == bytes["a"]?.messages)
        try store.write { store in
            try store.deleteMessages(of: "a", from: first)
            try store.touch("a", now: 4)
        }
        bytes = try Self.storedBytes(store)
        #expect(bytes["a"]?.stored == bytes["a"]?.messages)
        // A write that fails stores none of its bytes.
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.write { store in
                try store.appendMessage(id: "m5", role: "user", parts: Self.text("refused"), to: "b", now: 5)
                throw Refused()
            }
        }
        let after = try Self.storedBytes(store)
        #expect(after["b"]?.stored == bytes["b"]?.stored)
        #expect(after["b"]?.stored == after["b"]?.messages)
    }

    @Test func aBatchHandsTheSequenceOnAndSavesItOnceForAll() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ConversationStore(path: directory.appendingPathComponent("sequence.sqlite").path)
        // Every write of the counter is logged by a trigger: one a batch, not one a write.
        try store.write { store in
            try store.database.execute(
                """
                CREATE TABLE counter_writes (n INTEGER);
                CREATE TRIGGER counter_written AFTER UPDATE ON counters BEGIN INSERT INTO counter_writes VALUES (1); END;
                """)
        }
        let batchesBefore = store.writeQueue.batches
        struct Refused: Error {}
        let count = 9
        // Writes 1, 4, 7 and 8 take numbers and fail (their numbers go back to the next write).
        let outcomes = GroupCommitTests.concurrentWrites(store, count: count) { index, store in
            let caller = Caller(deviceId: "device-\(index)")
            let id = try store.createConversation(id: "c\(index)", title: nil, for: caller, now: 1).id
            try store.appendMessage(id: "m\(index)", role: "user", parts: Self.text("hi"), to: id, now: 1)
            if index % 3 == 1 || index == count - 1 { throw Refused() }
            return id
        }
        let committed = outcomes.count { (try? $0.get()) != nil }
        #expect(committed == 5)
        let batches = store.writeQueue.batches - batchesBefore
        let counterWrites = try store.read { store in
            try store.database.first("SELECT count(*) FROM counter_writes") { $0.int(0) }
        }
        #expect(batches < committed, "the writes were not batched: \(batches) batches")
        #expect(counterWrites == batches)
        func numbers() throws -> (counter: Int, used: [Int]) {
            try store.read { store in
                let counter = try store.database.first("SELECT value FROM counters WHERE name = 'sequence'") {
                    $0.int(0)
                }
                let conversations = try store.database.query("SELECT update_seq FROM conversations") { $0.int(0) }
                let messages = try store.database.query("SELECT seq FROM messages") { $0.int(0) }
                return (counter ?? -1, conversations + messages)
            }
        }
        let (counter, used) = try numbers()
        // Every committed write's two numbers, none twice, and the counter at the highest.
        #expect(used.count == 2 * committed)
        #expect(Set(used).count == used.count)
        #expect(counter == used.max())
        // The next write goes on from there.
        try store.write { store in
            _ = try store.createConversation(id: "next", title: nil, for: Caller(deviceId: "d"), now: 2)
        }
        let (nextCounter, nextUsed) = try numbers()
        #expect(nextCounter == counter + 1)
        #expect(nextUsed.max() == counter + 1)
    }
}
