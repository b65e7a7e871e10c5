// The server's SQLite store: the one-time JSON import, a failed write answering 500 with nothing
// stored, client-created conversations and idempotent chats (PROTOCOLS.md section 6).

import ChatStream
import ChatStreamSQLite
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("SQLite store and idempotent writes", .blockingAllowed)
struct SQLiteStoreTests {
    /// A fresh directory, removed by the caller.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A cached statement run again binds afresh: a parameter the new values do not cover reads
    /// NULL, not the previous run's value (SQLiteStatement clears bindings only then), and a run
    /// with every value rebinds them all.
    @Test func aStatementRunAgainWithFewerValuesBindsTheRestAsNull() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t(a TEXT, b TEXT)")
        let insert = "INSERT INTO t(a, b) VALUES (?1, ?2)"
        try database.run(insert, ["one", "two"])
        try database.run(insert, ["three"])
        try database.run(insert, ["four", "five"])
        let rows = try database.query("SELECT a, b FROM t ORDER BY rowid") { row in
            "\(row.text(0))/\(row.optionalText(1) ?? "NULL")"
        }
        #expect(rows == ["one/two", "three/NULL", "four/five"])
    }

    /// A connection told not to create its file fails on a missing one and leaves nothing behind;
    /// on an existing one it opens as usual.
    @Test func aConnectionThatMayNotCreateItsFileFailsOnAMissingOne() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        var options = SQLiteDatabase.Options()
        options.createsMissingFile = false
        #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: path, options: options) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try SQLiteDatabase(path: path).execute("CREATE TABLE t(a TEXT)")
        let reopened = try SQLiteDatabase(path: path, options: options)
        #expect(try reopened.query("SELECT name FROM sqlite_master") { $0.text(0) } == ["t"])
    }

    @Test func aJSONDataFileIsImportedOnceAndKeptAsABackup() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("data").path
        let legacy = """
            {"version":1,"sequence":7,"conversations":{"c1":{"id":"c1","title":"Old times","createdAt":10,
            "updatedAt":20,"updateSequence":7,"ownerDevice":"device-a","status":"ongoing","messages":[
            {"id":"m1","role":"user","parts":[{"type":"text","text":"hello from json"}],"createdAt":10,"sequence":2},
            {"id":"m2","role":"assistant","parts":[{"type":"text","text":"an old reply"}],"createdAt":11,"sequence":3}],
            "tags":{"device-a":["kept","old"]},"lastRead":{"device-a":2}}}}
            """
        try Data(legacy.utf8).write(to: URL(fileURLWithPath: file))
        do {
            let fixture = try APIFixture(dataFile: file)
            #expect(SQLiteDatabase.isDatabaseFile(file))
            let backup = file + ".json-backup"
            #expect(try String(contentsOfFile: backup, encoding: .utf8) == legacy)
            let list = try fixture.page(fixture.api("conversations?tag=old"))
            #expect(list.items.map { $0["title"]?.stringValue } == ["Old times"])
            #expect(list.items.first?["tags"] == ["kept", "old"])
            #expect(list.items.first?["unreadCount"] == 1)
            let history = try fixture.page(fixture.api("conversations/c1/messages"))
            #expect(
                history.items.compactMap { $0["parts"]?[0]?["text"]?.stringValue } == [
                    "hello from json", "an old reply",
                ])
            // New writes continue the imported sequence: the new message sorts after the old ones.
            #expect(try fixture.chat("newer", conversation: "c1").status == 200)
            let after = try fixture.page(fixture.api("conversations/c1/messages"))
            #expect(after.items.count == 4)
            #expect(after.items[2]["parts"]?[0]?["text"] == "newer")
            fixture.server.stop()
        }
        // The second start opens the database and imports nothing again.
        try Data("not json any more".utf8).write(to: URL(fileURLWithPath: file + ".json-backup"))
        let again = try APIFixture(dataFile: file)
        #expect(again.server.conversationCount == 1)
        #expect(try again.page(again.api("conversations/c1/messages")).items.count == 4)
    }

    @Test func aFailedWriteAnswers500AndStoresNothing() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("data.sqlite").path
        let fixture = try APIFixture(dataFile: file)
        let id = try fixture.startConversation("before the failure")
        // Another connection makes every message insert fail, as a full disk would.
        let other = try SQLiteDatabase(path: file)
        try other.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'disk is full'); END")
        let failed = try fixture.chat("lost")
        #expect(failed.status == 500)
        #expect(failed.errorCode == "INTERNAL_SERVER_ERROR")
        #expect(failed.text.contains("disk is full"))
        let continued = try fixture.chat("also lost", conversation: id)
        #expect(continued.status == 500)
        // The new conversation the first chat began was rolled back with its message.
        #expect(fixture.server.conversationCount == 1)
        let list = try fixture.page(fixture.api("conversations"))
        #expect(list.items.count == 1)
        #expect(list.items.first?["updatedAt"] != nil)
        #expect(try fixture.page(fixture.api("conversations/\(id)/messages")).total == 2)
        try other.execute("DROP TRIGGER refuse")
        #expect(try fixture.chat("works again", conversation: id).status == 200)
        #expect(try fixture.page(fixture.api("conversations/\(id)/messages")).total == 4)
    }

    @Test func clientCreatedConversationsAreIdempotentPerOwner() throws {
        let fixture = try APIFixture()
        let id = UUID().uuidString.lowercased()
        let body = #"{"id":"\#(id)","title":"Planned"}"#
        let created = try fixture.request("POST", fixture.api("conversations"), body: body)
        #expect(created.status == 201)
        #expect(created.json["data"]?["id"]?.stringValue == id)
        #expect(created.json["data"]?["title"] == "Planned")
        #expect(created.json["data"]?["status"] == "ongoing")
        let again = try fixture.request("POST", fixture.api("conversations"), body: body)
        #expect(again.status == 200)
        #expect(again.json["data"]?["id"]?.stringValue == id)
        let stranger = try fixture.request("POST", fixture.api("conversations"), device: "device-z", body: body)
        #expect(stranger.status == 409)
        #expect(stranger.errorCode == "RESOURCE_CONVERSATION_CONFLICT")
        #expect(fixture.server.conversationCount == 1)
        // Without an id the server makes one; the conversation takes messages at once.
        let serverMade = try fixture.request("POST", fixture.api("conversations"), body: "{}")
        #expect(serverMade.status == 201)
        #expect(serverMade.json["data"]?["id"]?.stringValue?.count == 36)
        #expect(try fixture.chat("first words", conversation: id).status == 200)
        let list = try fixture.page(fixture.api("conversations"))
        #expect(list.items.count == 2)
        #expect(list.items.first?["id"]?.stringValue == id)
        // With the extensions off the route does not exist for POST.
        let plain = try APIFixture(extensions: false)
        #expect(try plain.request("POST", plain.api("conversations"), body: body).status == 405)
    }

    @Test(arguments: [true, false])
    func aResentChatStoresNothingTwiceAndReplaysTheReply(stream: Bool) throws {
        let fixture = try APIFixture()
        let clientMessageId = UUID().uuidString.lowercased()
        func send(_ conversation: String?) throws -> APIResponse {
            var body: JSONObject = JSONObject()
            body["message"] = "hello once"
            if let conversation { body["conversationId"] = .string(conversation) }
            body["clientMessageId"] = .string(clientMessageId)
            body["stream"] = .bool(stream)
            return try fixture.request("POST", fixture.api("chat"), body: JSONTree.object(body).jsonText)
        }
        func replyText(_ response: APIResponse) -> String? {
            if stream {
                return response.streamChunks.chunks.compactMap {
                    $0["type"] == "text-delta" ? $0["delta"]?.stringValue : nil
                }
                .joined()
            }
            return response.json["data"]?["parts"]?[0]?["text"]?.stringValue
        }
        func metadata(_ response: APIResponse) -> JSONTree? {
            stream
                ? response.streamChunks.chunks.last?["messageMetadata"] : response.json["data"]?["metadata"]
        }
        let first = try send(nil)
        #expect(first.status == 200)
        #expect(first.header("Idempotent-Replayed") == nil)
        let conversation = try #require(metadata(first)?["conversationId"]?.stringValue)
        // A resend without the conversation (its answer was lost) and one with it: both replays.
        for resend in [try send(nil), try send(conversation)] {
            #expect(resend.status == 200)
            #expect(resend.header("Idempotent-Replayed") == "true")
            #expect(replyText(resend) == replyText(first))
            #expect(metadata(resend)?["messageId"] == metadata(first)?["messageId"])
            #expect(metadata(resend)?["conversationId"]?.stringValue == conversation)
        }
        #expect(fixture.server.conversationCount == 1)
        let history = try fixture.page(fixture.api("conversations/\(conversation)/messages"))
        #expect(history.total == 2)
        #expect(history.items.first?["clientMessageId"]?.stringValue == clientMessageId)
        #expect(history.items.last?["clientMessageId"] == nil)
        // Another device with the same clientMessageId gets its own conversation, not a replay.
        var other = JSONObject()
        other["message"] = "hello once"
        other["clientMessageId"] = .string(clientMessageId)
        let stranger = try fixture.request(
            "POST", fixture.api("chat"), device: "device-z", body: JSONTree.object(other).jsonText)
        #expect(stranger.status == 200)
        #expect(stranger.header("Idempotent-Replayed") == nil)
        #expect(fixture.server.conversationCount == 2)
    }

    @Test func aResendIsReplayedEvenAfterTheConversationEnded() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("start")
        let clientMessageId = UUID().uuidString.lowercased()
        let body =
            #"{"message":"last words","conversationId":"\#(id)","clientMessageId":"\#(clientMessageId)","stream":false}"#
        #expect(try fixture.request("POST", fixture.api("chat"), body: body).status == 200)
        fixture.server.endConversation(id: id)
        let resend = try fixture.request("POST", fixture.api("chat"), body: body)
        #expect(resend.status == 200)
        #expect(resend.header("Idempotent-Replayed") == "true")
        let fresh = body.replacingOccurrences(of: clientMessageId, with: UUID().uuidString.lowercased())
        #expect(
            try fixture.request("POST", fixture.api("chat"), body: fresh).errorCode == "CHAT_CONVERSATION_NOT_ONGOING")
    }
}
