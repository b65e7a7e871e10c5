// A write's `message.created` events are made from the messages as the write stored them (noted
// in StoreChanges) instead of reading them back under the write lock; they must be exactly what
// reading the rows back gives, for every kind of message and whether it travels whole or as its
// preview, and a message changed again in the same write must not be shaped from its first form.

import ChatStream
import Testing

@testable import ChatStreamServer

@Suite("Live message shapes from the write")
struct LiveMessageShapeTests {
    static let bounds = LiveEventBounds(count: 100, bytes: 1 << 20, inlineMessageBytes: 300)

    /// The shapes of `sequences` from what the transaction noted, and read back from the rows.
    static func bothShapes(_ store: StoreTransaction, _ sequences: [Int]) throws -> (
        noted: [JSONTree], read: [JSONTree]
    ) {
        #expect(sequences.allSatisfy { store.changes.storedMessages[$0] != nil })
        let noted = try store.liveMessageShapes(sequences, bounds: bounds).map(\.shape)
        store.changes.forgetStoredMessages(from: 0)
        let read = try store.liveMessageShapes(sequences, bounds: bounds).map(\.shape)
        return (noted, read)
    }

    @Test(arguments: [ReplyState?.none, .stopped, .interrupted])
    func notedShapesAreWhatTheRowsGive(_ state: ReplyState?) throws {
        let store = try ConversationStore(path: nil, liveEventCapacity: 100, previewLength: 40)
        let caller = Caller(deviceId: "device-a")
        let (noted, read) = try store.write(recordingEvents: false) { store in
            _ = try store.createConversation(id: "c", title: nil, for: caller, now: 1)
            let short = try store.appendMessage(
                id: "m1", role: "user", parts: [["type": "text", "text": "hi \"there\" \u{e9}"]], to: "c", now: 2,
                clientMessageId: "6c0c9a4e-2a43-4a8f-9d2c-1c3f1f0a8f11")
            let long = try store.appendMessage(
                id: "m2", role: "user",
                parts: [["type": "text", "text": .string(String(repeating: "long ", count: 200))]],
                to: "c", now: 3)
            let reply = try store.beginReply(id: "r1", in: "c", replyTo: long.sequence, finishReason: "stop", now: 4)
            let parts: [JSONTree] = state == .interrupted ? [] : [["type": "text", "text": "the reply"]]
            #expect(try store.endReply(StoredParts(parts), state: state, events: 5, ofMessage: reply.sequence, now: 5))
            let empty = try store.beginReply(id: "r2", in: "c", replyTo: nil, finishReason: "stop", now: 6)
            return try Self.bothShapes(store, [short.sequence, long.sequence, reply.sequence, empty.sequence])
        }
        #expect(noted == read)
        #expect(noted.count == 3, "the generating reply has no shape")
        #expect(noted[0]["clientMessageId"]?.stringValue == "6c0c9a4e-2a43-4a8f-9d2c-1c3f1f0a8f11")
        #expect(noted[1]["truncated"]?.boolValue == true)
        #expect(noted[2]["id"]?.stringValue == "r1")
    }

    @Test func aMessageChangedAgainInTheSameWriteIsShapedFromItsRow() throws {
        let store = try ConversationStore(path: nil, liveEventCapacity: 100)
        let caller = Caller(deviceId: "device-a")
        let shapes = try store.write(recordingEvents: false) { store in
            _ = try store.createConversation(id: "c", title: nil, for: caller, now: 1)
            let first = try store.appendMessage(
                id: "m1", role: "assistant", parts: [["type": "text", "text": "first"]], to: "c", now: 2)
            try store.setParts([["type": "text", "text": "second"]], ofMessage: first.sequence)
            let gone = try store.appendMessage(
                id: "m2", role: "assistant", parts: [["type": "text", "text": "gone"]], to: "c", now: 3)
            try store.deleteMessages(of: "c", from: gone.sequence)
            return try store.liveMessageShapes([first.sequence, gone.sequence], bounds: Self.bounds).map(\.shape)
        }
        #expect(shapes.count == 1)
        #expect(shapes.first?["parts"]?[0]?["text"]?.stringValue == "second")
    }
    @Test func anEventsStoredTextIsItsDataSerialized() throws {
        // message.created's text is spliced from the message's JSON (made once); every event's
        // stored text must still be exactly its data serialized, as the memory tail holds it.
        let store = try ConversationStore(path: nil, liveEventCapacity: 100)
        let caller = Caller(deviceId: "device-a")
        try store.write { store in
            _ = try store.createConversation(id: "c\"1", title: "a \"title\"", for: caller, now: 1)
            _ = try store.appendMessage(
                id: "m1", role: "user", parts: [["type": "text", "text": "hi \"there\" \u{e9}\n"]], to: "c\"1",
                now: 2, clientMessageId: "6c0c9a4e-2a43-4a8f-9d2c-1c3f1f0a8f11")
            _ = try store.appendMessage(
                id: "m2", role: "assistant",
                parts: [["type": "text", "text": .string(String(repeating: "long ", count: 2_000))]], to: "c\"1",
                now: 3)
        }
        guard case .events(let held)? = store.liveEventsInMemory(after: 0, audiences: [caller.ownerKey])?.0 else {
            Issue.record("no events in memory")
            return
        }
        let stored = try store.read { store in
            try store.database.query("SELECT seq, data FROM events ORDER BY seq") { ($0.int(0), $0.text(1)) }
        }
        #expect(held.filter { $0.type == "message.created" }.count == 2)
        #expect(stored.map(\.0) == held.map(\.id))
        #expect(stored.map(\.1) == held.map(\.data.jsonText))
    }
}
