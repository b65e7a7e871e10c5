// The live-event log as rows of the server's SQLite database: events recorded in the transaction of
// the change they report, numbered for good, kept across a restart, pruned per audience with a
// `reset` for a resume from before the pruning, and tags and read state that follow a user.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Live events in the SQLite store", .blockingAllowed)
struct LiveEventStoreTests {
    static func types(_ resumption: LiveEventResumption) -> [String] {
        guard case .events(let records) = resumption else { return ["reset"] }
        return records.map(\.type)
    }

    @Test func eachChangeBecomesEventsInItsTransactionAndTheyOutliveARestart() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("events.sqlite").path
        let caller = Caller(deviceId: "device-a")
        var before: [LiveEventRecord] = []
        do {
            let store = try ConversationStore(path: file, liveEventCapacity: 100)
            try store.write { store in
                _ = try store.createConversation(id: "c1", title: "first", for: caller, now: 1)
                try store.appendMessage(
                    id: "m1", role: "user", parts: [AssembledPart.text("hi").jsonValue], to: "c1", now: 1)
                // A message without parts is not announced.
                try store.appendMessage(id: "m2", role: "assistant", parts: [], to: "c1", now: 1)
            }
            try store.write { store in try store.setStatus("ended", of: "c1") }
            // A transaction that fails records nothing.
            #expect(throws: (any Error).self) {
                try store.write { store in
                    try store.setTitle("never", of: "c1")
                    throw APIError.notOngoing
                }
            }
            let (resumption, lastId) = try store.liveEvents(after: 0, audiences: caller.audiences)
            #expect(Self.types(resumption) == ["conversation.created", "message.created", "conversation.updated"])
            guard case .events(let records) = resumption else { return }
            before = records
            #expect(records.map(\.id) == records.map(\.id).sorted())
            #expect(lastId == records.last?.id)
            #expect(records[2].data["conversation"]?["status"] == "ended")
            #expect(records[1].data["message"]?["id"] == "m1")
            // Another device hears nothing of it.
            #expect(Self.types(try store.liveEvents(after: 0, audiences: ["d:device-b"]).0) == [])
        }
        let reopened = try ConversationStore(path: file, liveEventCapacity: 100)
        #expect(try reopened.liveEvents(after: 0, audiences: caller.audiences).0 == .events(before))
        // New IDs continue after the old ones.
        try reopened.write { store in try store.setTitle("renamed", of: "c1") }
        guard case .events(let later) = try reopened.liveEvents(after: before.last!.id, audiences: caller.audiences).0
        else {
            Issue.record("a resume from the last ID before the restart answered reset")
            return
        }
        #expect(later.map(\.type) == ["conversation.updated"])
        #expect(later[0].id > before.last!.id)
    }

    @Test func eachAudienceKeepsItsLastEventsAndAnOlderResumeIsReset() throws {
        let store = try ConversationStore(path: nil, liveEventCapacity: 3)
        let caller = Caller(deviceId: "device-a")
        let other = Caller(deviceId: "device-b")
        try store.write { store in _ = try store.createConversation(id: "a", title: nil, for: caller, now: 1) }
        try store.write { store in _ = try store.createConversation(id: "b", title: nil, for: other, now: 1) }
        for round in 0..<5 { try store.write { store in try store.setTitle("t\(round)", of: "a") } }
        let (all, lastId) = try store.liveEvents(after: 0, audiences: caller.audiences)
        #expect(all == .reset)
        // The device's three newest remain; a resume from the third newest's predecessor still works.
        let (tail, _) = try store.liveEvents(after: lastId - 3, audiences: caller.audiences)
        #expect(Self.types(tail) == ["conversation.updated", "conversation.updated", "conversation.updated"])
        #expect(try store.liveEvents(after: lastId - 4, audiences: caller.audiences).0 == .reset)
        // The other audience lost nothing, and an ID from the future is reset too.
        #expect(Self.types(try store.liveEvents(after: 0, audiences: other.audiences).0) == ["conversation.created"])
        #expect(try store.liveEvents(after: lastId + 1, audiences: other.audiences).0 == .reset)
    }

    @Test func signingInCarriesTheDevicesTagsAndReadStateToTheUser() throws {
        let store = try ConversationStore(path: nil, liveEventCapacity: 10)
        let anonymous = Caller(deviceId: "device-a")
        let user = Caller(deviceId: "device-a", userId: "ada")
        let sequence = try store.write { store -> Int in
            _ = try store.createConversation(id: "c", title: nil, for: anonymous, now: 1)
            let reply = try store.appendMessage(
                id: "r", role: "assistant", parts: [AssembledPart.text("hello").jsonValue], to: "c", now: 1)
            try store.setTags(["work"], of: "c", identity: anonymous.ownerKey)
            return reply.sequence
        }
        let (_, lastBefore) = try store.liveEvents(after: 0, audiences: [])
        try store.write { store in
            try store.markRead("c", identity: anonymous.ownerKey, upTo: sequence)
            try store.assignAnonymousConversations(ofDevice: "device-a", toUser: "ada")
        }
        try store.read { store in
            let record = try store.conversation("c", for: user)
            let view = try store.view(record, for: user)
            #expect(view.tags == ["work"])
            #expect(view.unreadCount == 0)
            // A stranger is told the conversation does not exist.
            let error = #expect(throws: APIError.self) {
                try store.conversation("c", for: Caller(deviceId: "device-z"))
            }
            #expect(error?.code == APIError.conversationNotFound.code)
        }
        // The user's audience hears the change, with the conversation as the user sees it.
        guard case .events(let records) = try store.liveEvents(after: lastBefore, audiences: user.audiences).0 else {
            Issue.record("reset")
            return
        }
        #expect(records.map(\.type) == ["conversation.updated"])
        #expect(records.first?.data["conversation"]?["tags"] == ["work"])
    }

    @Test func aJSONFilesUserAndDeviceKeysBecomeIdentities() {
        #expect(StorePersistence.identity(fromLegacyKey: "user:ada") == "u:ada")
        #expect(StorePersistence.identity(fromLegacyKey: "device-a") == "d:device-a")
    }

    /// A read of the log that fails is an error, never an empty answer: a resume from 0 told
    /// "nothing after 0, newest 0" would skip every event the log holds.
    @Test func aLogThatCannotBeReadIsAnErrorNotAnEmptyAnswer() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ConversationStore(
            path: directory.appendingPathComponent("unreadable.sqlite").path, liveEventCapacity: 100)
        let caller = Caller(deviceId: "device-a")
        try store.write { store in _ = try store.createConversation(id: "c1", title: nil, for: caller, now: 1) }
        let (held, _) = try store.liveEventsFromDatabase(after: 0, audiences: caller.audiences)
        #expect(Self.types(held) == ["conversation.created"])
        try store.write { store in try store.database.execute("DROP TABLE events") }
        #expect(throws: (any Error).self) { try store.liveEventsFromDatabase(after: 0, audiences: caller.audiences) }
    }
}
