// Limits that keep one identity from hurting others (issue 20): per-identity quotas answered with
// their documented errors and nothing stored, bounded `lastMessage` previews, sealed page cursors,
// and reads that do not wait for a slow reader.

import ChatStream
import ChatStreamSQLite
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Quotas, previews and cursors", .blockingAllowed)
struct QuotaAndPreviewTests {
    @Test func eachQuotaAnswersItsErrorAndStoresNothing() throws {
        let fixture = try APIFixture { configuration in
            configuration.quotas.conversationsPerIdentity = 2
            configuration.quotas.messagesPerConversation = 4
            configuration.quotas.storedBytesPerIdentity = 4_000
        }
        let first = try fixture.startConversation("one")
        _ = try fixture.startConversation("two")
        let third = try fixture.chat("three")
        #expect(third.status == 429)
        #expect(third.errorCode == "QUOTA_CONVERSATIONS_EXCEEDED")
        #expect(third.header("Retry-After") == "3600")
        #expect(fixture.server.conversationCount == 2)
        // Another device has its own allowance.
        #expect(try fixture.chat("elsewhere", device: "device-b").status == 200)
        // Two messages (question and reply) per chat: the second chat fills the conversation to 4.
        #expect(try fixture.chat("again", conversation: first).status == 200)
        let full = try fixture.chat("one too many", conversation: first)
        #expect(full.status == 413)
        #expect(full.errorCode == "QUOTA_MESSAGES_EXCEEDED")
        #expect(try fixture.page(fixture.api("conversations/\(first)/messages")).items.count == 4)
        // Bytes: a long message goes over the identity's stored bytes.
        let second = try fixture.page(fixture.api("conversations")).items.compactMap { $0["id"]?.stringValue }
            .first { $0 != first }!
        let big = try fixture.chat(String(repeating: "x", count: 5_000), conversation: second)
        #expect(big.status == 413)
        #expect(big.errorCode == "QUOTA_STORAGE_EXCEEDED")
        #expect(try fixture.page(fixture.api("conversations/\(second)/messages")).items.count == 2)
    }

    @Test func listsCarryABoundedPreviewOfTheLastMessage() throws {
        let fixture = try APIFixture { $0.lastMessagePreviewLength = 40 }
        let long = String(repeating: "é", count: 300) + " end"
        let id = try fixture.startConversation("short")
        // The agent's message is the last one; make it long.
        #expect(fixture.server.addAgentMessage(conversationId: id, text: long) != nil)
        let page = try fixture.page(fixture.api("conversations"))
        let last = page.items.first?["lastMessage"]
        #expect(last?["parts"]?[0]?["text"]?.stringValue == String(repeating: "é", count: 40))
        #expect(last?["truncated"] == true)
        #expect(last?["role"] == "assistant")
        // The history keeps the whole message.
        let history = try fixture.page(fixture.api("conversations/\(id)/messages"))
        #expect(history.items.last?["parts"]?[0]?["text"]?.stringValue == long)
        // A short last message is whole and not marked.
        #expect(fixture.server.addAgentMessage(conversationId: id, text: "a short one") != nil)
        let after = try fixture.page(fixture.api("conversations")).items.first?["lastMessage"]
        #expect(after?["truncated"] == nil)
        #expect(after?["parts"]?[0]?["text"] == "a short one")
    }

    @Test func cursorsAreSealedAndRevealNoCounter() throws {
        let fixture = try APIFixture()
        for index in 0..<5 { _ = try fixture.startConversation("conversation \(index)") }
        let first = try fixture.page(fixture.api("conversations?limit=2"))
        let cursor = try #require(first.cursor)
        let bytes = try #require(Base64URL.decode(cursor))
        // Not readable JSON, no digits of the anchor in the clear.
        #expect((try? JSONTree(parsing: bytes)) == nil)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("\"a\""))
        // The same position twice gives two different cursors (a fresh nonce), both valid.
        let again = try #require(try fixture.page(fixture.api("conversations?limit=2")).cursor)
        #expect(again != cursor)
        let next = try fixture.page(fixture.api("conversations?limit=2&cursor=\(cursor)"))
        let nextAgain = try fixture.page(fixture.api("conversations?limit=2&cursor=\(again)"))
        #expect(next.status == 200)
        #expect(next.items.map { $0["id"] } == nextAgain.items.map { $0["id"] })
        // A changed byte fails the seal; a cursor of the old plain form is refused too.
        var tampered = bytes
        tampered[10] ^= 1
        let forged = try fixture.request(
            "GET", fixture.api("conversations?limit=2&cursor=\(Base64URL.encode(tampered))"))
        #expect(forged.status == 400)
        #expect(forged.errorCode == "VALIDATION_INVALID_CURSOR")
        let plain = Base64URL.encode(Array(#"{"k":"conversations","s":"","a":3,"f":""}"#.utf8))
        #expect(try fixture.request("GET", fixture.api("conversations?cursor=\(plain)")).status == 400)
    }

    @Test func cursorsOutliveARestartOfAFileStore() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("data.sqlite").path
        var cursor = ""
        do {
            let fixture = try APIFixture(dataFile: file)
            for index in 0..<3 { _ = try fixture.startConversation("c\(index)") }
            cursor = try #require(try fixture.page(fixture.api("conversations?limit=1")).cursor)
            fixture.server.stop()
        }
        let fixture = try APIFixture(dataFile: file)
        let next = try fixture.page(fixture.api("conversations?limit=1&cursor=\(cursor)"))
        #expect(next.status == 200)
        #expect(next.items.count == 1)
    }

    @Test func aReadOfAFileStoreDoesNotWaitForAnotherRead() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ConversationStore(path: directory.appendingPathComponent("s.sqlite").path, readerCount: 2)
        try store.write { store in
            _ = try store.createConversation(id: "c", title: "t", for: Caller(deviceId: "d"), now: 1)
        }
        // One read is held open; a second read and a write both finish meanwhile.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? store.read { store -> Int in
                entered.signal()
                release.wait()
                return try store.conversationCount()
            }
        }
        thread.start()
        entered.wait()
        defer { release.signal() }
        #expect(try store.read { try $0.conversationCount() } == 1)
        try store.write { store in
            _ = try store.createConversation(id: "c2", title: nil, for: Caller(deviceId: "d"), now: 2)
        }
        #expect(try store.read { try $0.conversationCount() } == 2)
    }

    @Test func aVersionOneDatabaseMigratesWithPreviewsAndSizes() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("v1.sqlite").path
        let parts =
            #"[{"type":"text","text":"hello"},{"type":"tool-call","toolCallId":"t"},{"type":"text","text":"there"}]"#
        do {
            let old = try SQLiteDatabase(path: file)
            try old.migrate(Array(StoreSchema.migrations.prefix(1)))
            try old.run(
                """
                INSERT INTO conversations(id, title, created_at, updated_at, update_seq, owner_device, owner_key, status)
                VALUES ('c', 't', 1, 1, 1, 'device-a', 'd:device-a', 'ongoing')
                """)
            try old.run(
                """
                INSERT INTO messages(seq, id, conversation_id, role, parts, visible, search_text, created_at)
                VALUES (2, 'm', 'c', 'assistant', ?1, 1, 'hello there', 1)
                """, [parts])
        }
        let store = try ConversationStore(path: file)
        let preview = try store.read { try $0.lastVisibleMessage(of: "c") }
        let usage = try store.read { try $0.usage(of: "d:device-a") }
        #expect(preview?.text == "hello there")
        // The parts, and the one-byte title (titles count in the quota too).
        #expect(usage.bytes == parts.utf8.count + 1)
        #expect(try SQLiteDatabase(path: file).schemaVersion == StoreSchema.migrations.count)
    }
}
