// Issue 31, deliverable 1: live events, the events log and the in-memory tail bounded in bytes,
// events counted in the identity's quota, and a store budget for everyone. Each amplification
// scenario of the issue (a long title then 200 tag updates, 100 retries of a long reply, a
// preview of characters with endless combining marks, device IDs that cost nothing) runs here at
// a smaller scale, and the bytes held must stay under the configured bound.

import ChatStream
import ChatStreamSQLite
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Live events bounded in bytes", .blockingAllowed)
struct LiveEventBytesTests {
    /// Every event of `audience` the log still holds (events after ID 0, or after the newest eviction).
    static func logged(_ store: ConversationStore, _ audience: String) throws -> [LiveEventRecord] {
        try store.read { store in
            let evicted = try store.eventEvictions()[audience] ?? 0
            guard case .events(let records) = try store.liveEvents(after: evicted, audiences: [audience]).0 else {
                return []
            }
            return records
        }
    }

    @Test func aLongTitleThen200TagUpdatesHoldsAtMostTheLogsBytes() throws {
        let bound = 16 << 10
        let fixture = try APIFixture { configuration in
            configuration.liveEvents.bytesPerCaller = bound
            configuration.liveEvents.memoryBytes = 2 * bound
        }
        let id = try fixture.startConversation("start")
        // The largest title and 25 tags of 64 characters (the most a tag may have).
        let title = String(repeating: "t", count: StringLimits.titleBytes)
        let long = UUID().uuidString.lowercased()
        let created = try fixture.request(
            "POST", fixture.api("conversations"), body: #"{"id":"\#(long)","title":"\#(title)"}"#)
        #expect(created.status == 201)
        for round in 0..<200 {
            let tags = (0..<25).map { index in
                let head = "\(round)-\(index)-"
                return "\"" + head + String(repeating: "g", count: 64 - head.count) + "\""
            }
            let answer = try fixture.request(
                "PUT", fixture.api("conversations/\(long)/tags"), body: #"{"tags":[\#(tags.joined(separator: ","))]}"#)
            #expect(answer.status == 200)
        }
        let store = fixture.server.handlers.store
        let events = try Self.logged(store, "d:device-a")
        let bytes = try store.read { try $0.eventBytes(of: "d:device-a") }
        // Each tag update is one ~3 KB event: 200 of them would be 600 KB; the log keeps 16 KiB.
        #expect(bytes <= bound)
        #expect(events.count >= 2)
        #expect(events.last?.data["conversation"]?["tags"]?[0]?.stringValue?.hasPrefix("199-0-") == true)
        #expect(events.allSatisfy { $0.data.jsonText.utf8.count < 8 << 10 })
        let held = store.liveEventTailHeld
        #expect(held.bytes <= 2 * bound)
        #expect(held.count >= 1)
        // The conversation started by chat is untouched by the pruning of the log.
        #expect(try fixture.request("GET", fixture.api("conversations/\(id)")).status == 200)
    }

    @Test func retriesOfALongReplyCarryAPreviewNotTheBody() throws {
        let fixture = try APIFixture { configuration in
            configuration.liveEvents.bytesPerCaller = 64 << 10
            configuration.liveEvents.inlineMessageBytes = 1_000
            configuration.lastMessagePreviewLength = 50
        }
        let id = try fixture.startConversation("start")
        let long = String(repeating: "r", count: 64 << 10)
        var messageIds: [String] = []
        for _ in 0..<100 {
            messageIds.append(try #require(fixture.server.addAgentMessage(conversationId: id, text: long)))
        }
        // A short message still travels whole.
        let short = try #require(fixture.server.addAgentMessage(conversationId: id, text: "short and whole"))
        let store = fixture.server.handlers.store
        let events = try Self.logged(store, "d:device-a")
        let created = events.filter { $0.type == "message.created" }
        #expect(!created.isEmpty)
        for event in created {
            let message = try #require(event.data["message"])
            if message["id"]?.stringValue == short {
                #expect(message["truncated"] == nil)
                #expect(message["parts"]?[0]?["text"] == "short and whole")
            } else {
                #expect(message["truncated"] == true)
                #expect(message["parts"]?[0]?["text"]?.stringValue == String(repeating: "r", count: 50))
                #expect(event.data.jsonText.utf8.count < 1_000)
            }
        }
        // 100 events of 64 KiB would be 6.4 MB; the log holds less than its bound, the tail too.
        #expect(try store.read { try $0.eventBytes(of: "d:device-a") } <= 64 << 10)
        #expect(store.liveEventTailHeld.bytes <= 8 << 20)
        #expect(store.liveEventTailHeld.bytes < 100 * 1_000)
        // The history has every message whole.
        let history = try fixture.page(fixture.api("conversations/\(id)/messages?limit=100"))
        #expect(history.items.contains { $0["id"]?.stringValue == messageIds.last })
        #expect(
            history.items.first { $0["id"]?.stringValue == messageIds.last }?["parts"]?[0]?["text"]?.stringValue == long
        )
    }

    @Test func theTailDropsItsOldestEventsPastItsBytesAndKeepsTheNewest() {
        let tail = LiveEventTail(lastId: 0, evictedThrough: [:], capacity: 100, byteCapacity: 1_000)
        for id in 1...30 {
            let record = LiveEventRecord(id: id, type: "conversation.updated", data: ["n": .number(JSONNumber(id))])
            tail.append([(audience: "d:a", record: record, bytes: 300)], evictions: [:])
        }
        #expect(tail.held.count == 3)
        #expect(tail.held.bytes == 900)
        // A resume the tail still covers is answered from memory; an older one goes to the table.
        guard case (.events(let newest), 30)? = tail.events(after: 27, audiences: ["d:a"]) else {
            Issue.record("the tail did not answer a resume it covers")
            return
        }
        #expect(newest.map(\.id) == [28, 29, 30])
        #expect(tail.events(after: 26, audiences: ["d:a"]) == nil)
        // One event larger than the whole bound is still kept (alone).
        let huge = LiveEventRecord(id: 31, type: "conversation.updated", data: [:])
        tail.append([(audience: "d:a", record: huge, bytes: 5_000)], evictions: [:])
        #expect(tail.held.count == 1)
        #expect(tail.held.bytes == 5_000)
    }

    /// Past its count the tail keeps exactly the newest `capacity` events, whatever the batches
    /// (the dropped slots are removed from its array only now and then: the answers never show it).
    @Test func theTailKeepsItsNewestEventsByCountAcrossManyBatches() {
        let tail = LiveEventTail(lastId: 0, evictedThrough: [:], capacity: 10, byteCapacity: 1 << 20)
        var id = 0
        for batch in [1, 3, 1, 25, 2, 7, 1, 40, 1, 1, 13] + Array(repeating: 1, count: 300) {
            let records = (0..<batch).map { _ in
                id += 1
                return (
                    audience: id % 2 == 0 ? "d:a" : "d:b", record: LiveEventRecord(id: id, type: "t", data: [:]),
                    bytes: 7
                )
            }
            tail.append(records, evictions: [:])
            #expect(tail.held.count == min(10, id))
            #expect(tail.held.bytes == 7 * min(10, id))
            guard case (.events(let held), id)? = tail.events(after: max(0, id - 10), audiences: ["d:a", "d:b"]) else {
                Issue.record("the tail did not answer a resume from its oldest event after \(id)")
                return
            }
            #expect(held.map(\.id) == Array(max(1, id - 9)...id))
            if id > 10 { #expect(tail.events(after: id - 11, audiences: ["d:a"]) == nil) }
        }
        guard case (.events(let mine), _)? = tail.events(after: id - 10, audiences: ["d:a"]) else {
            Issue.record("no answer for one audience")
            return
        }
        #expect(mine.map(\.id) == (id - 9...id).filter { $0 % 2 == 0 })
    }

    @Test func theLogIsPrunedByBytesAndAnOlderResumeIsReset() throws {
        let store = try ConversationStore(path: nil, liveEventCapacity: 1_000, liveEventBytes: 3_000)
        let caller = Caller(deviceId: "device-a")
        try store.write { store in _ = try store.createConversation(id: "a", title: nil, for: caller, now: 1) }
        for round in 0..<50 {
            try store.write { store in
                try store.setTitle("title \(round) " + String(repeating: "x", count: 400), of: "a")
            }
        }
        let bytes = try store.read { try $0.eventBytes(of: caller.ownerKey) }
        #expect(bytes <= 3_000)
        #expect(bytes > 1_000)
        let (all, lastId) = try store.liveEvents(after: 0, audiences: caller.audiences)
        #expect(all == .reset)
        guard case .events(let newest) = try store.liveEvents(after: lastId - 1, audiences: caller.audiences).0 else {
            Issue.record("the newest event was pruned")
            return
        }
        #expect(newest.first?.data["conversation"]?["title"]?.stringValue?.hasPrefix("title 49 ") == true)
    }

    @Test func aPreviewOfCombiningMarksIsBoundedInBytes() throws {
        let fixture = try APIFixture { $0.lastMessagePreviewLength = 100 }
        let id = try fixture.startConversation("start")
        // Each "character" is a letter with 2,000 combining acute accents: 4 KB of UTF-8 apiece.
        let heavy = String(repeating: "e" + String(repeating: "\u{0301}", count: 2_000), count: 300)
        #expect(fixture.server.addAgentMessage(conversationId: id, text: heavy) != nil)
        let last = try fixture.page(fixture.api("conversations")).items.first?["lastMessage"]
        let text = try #require(last?["parts"]?[0]?["text"]?.stringValue)
        #expect(text.utf8.count <= 4 * 100)
        #expect(!text.isEmpty)
        #expect(last?["truncated"] == true)
        // The stored preview is bounded too.
        #expect(MessagePreview.stored(heavy).utf8.count <= MessagePreview.storedBytes)
    }

    @Test func liveEventsCountInTheIdentitysStorageQuota() throws {
        let fixture = try APIFixture { configuration in
            configuration.quotas.storedBytesPerIdentity = 10_000
        }
        _ = try fixture.startConversation("hello")
        let tagged = UUID().uuidString.lowercased()
        let created = try fixture.request("POST", fixture.api("conversations"), body: #"{"id":"\#(tagged)"}"#)
        #expect(created.status == 201)
        // Messages alone stay far below 10,000 bytes; the events of these tag updates do not.
        for round in 0..<50 {
            let tag = "\"\(round)-" + String(repeating: "q", count: 60) + "\""
            #expect(
                try fixture.request("PUT", fixture.api("conversations/\(tagged)/tags"), body: #"{"tags":[\#(tag)]}"#)
                    .status == 200)
        }
        let store = fixture.server.handlers.store
        let events = try store.read { try $0.eventBytes(of: "d:device-a") }
        let usage = try store.read { try $0.usage(of: "d:device-a") }
        #expect(events > 0)
        #expect(usage.bytes >= events)
        let refused = try fixture.chat("one more")
        #expect(refused.status == 413)
        #expect(refused.errorCode == "QUOTA_STORAGE_EXCEEDED")
        // Another device, with no events of its own, may still write.
        #expect(try fixture.chat("one more", device: "device-b").status == 200)
    }

    @Test func theStoreBudgetBoundsEveryoneAndAnswers507() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let budget = 4 << 20
        let fixture = try APIFixture(dataFile: directory.appendingPathComponent("budget.sqlite").path) {
            $0.quotas.storeBudgetBytes = budget
        }
        // Fresh device IDs cost nothing, so per-identity quotas alone never stop this.
        let message = String(repeating: "b", count: 100 << 10)
        var answers: [Int] = []
        for device in 0..<60 { answers.append(try fixture.chat(message, device: "device-\(device)").status) }
        #expect(answers.prefix(3).allSatisfy { $0 == 200 }, "\(answers)")
        #expect(answers.suffix(5).allSatisfy { $0 == 507 })
        let full = try fixture.chat(message, device: "device-new")
        #expect(full.status == 507)
        #expect(full.errorCode == "STORE_FULL")
        let used = try fixture.server.handlers.store.read { try $0.databaseBytes() }
        // At most one message over the budget: the check runs before the transaction commits.
        #expect(used <= budget + 2 * message.utf8.count)
        // Reads still work.
        #expect(try fixture.page(fixture.api("conversations"), device: "device-0").items.count == 1)
    }

    @Test func anUnreadableEventRowIsSkippedAndCounted() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("poisoned.sqlite").path
        let caller = Caller(deviceId: "device-a")
        do {
            let store = try ConversationStore(path: file, liveEventCapacity: 100)
            try store.write { store in _ = try store.createConversation(id: "c", title: "one", for: caller, now: 1) }
            try store.write { store in try store.setTitle("two", of: "c") }
            try store.write { store in try store.setTitle("three", of: "c") }
        }
        do {
            let database = try SQLiteDatabase(path: file, options: .durable)
            try database.run("UPDATE events SET data = '{\"broken' WHERE seq = 2", [])
        }
        let before = LiveEventWarnings.unreadableRowCount
        // Reopened, the memory tail is empty: the resume reads the table.
        let store = try ConversationStore(path: file, liveEventCapacity: 100)
        guard case .events(let records) = try store.liveEvents(after: 0, audiences: caller.audiences).0 else {
            Issue.record("reset")
            return
        }
        #expect(records.map(\.id) == [1, 3])
        #expect(records.last?.data["conversation"]?["title"] == "three")
        #expect(LiveEventWarnings.unreadableRowCount > before)
    }
}
