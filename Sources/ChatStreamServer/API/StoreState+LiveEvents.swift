// StoreState+LiveEvents: every change to the store, from the API or from the server's own admin
// calls, becomes live events in the same transaction. Rather than each handler announcing what
// it did, the store compares each conversation before and after the transaction: a new one is
// `conversation.created`, each new message `message.created`, and any other change to what a
// list shows (status, title, update time, tags, read state, owner) `conversation.updated`.

import ChatStream

extension StoreState {
    /// Records the live events for the changes between `before` and the current conversations.
    mutating func recordLiveEvents(since before: [String: ConversationRecord], capacity: Int) {
        var changed: [(ConversationRecord, ConversationRecord?)] = []
        for (id, after) in conversations {
            let previous = before[id]
            if let previous, !Self.differs(previous, after) { continue }
            changed.append((after, previous))
        }
        guard !changed.isEmpty else { return }
        changed.sort { $0.0.updateSequence < $1.0.updateSequence }
        var log = liveEvents ?? LiveEventLog()
        for (after, previous) in changed {
            let audience = after.audience
            let shape = WireShapes.conversation(after, identity: audience, extensions: true)
            if previous == nil {
                log.append(
                    audience: audience, type: "conversation.created", data: ["conversation": shape], capacity: capacity)
            }
            let known = Set(previous?.messages.map(\.id) ?? [])
            for message in after.messages where !known.contains(message.id) && !message.parts.isEmpty {
                let data: JSONTree = ["conversationId": .string(after.id), "message": WireShapes.message(message)]
                log.append(audience: audience, type: "message.created", data: data, capacity: capacity)
            }
            if previous != nil {
                log.append(
                    audience: audience, type: "conversation.updated", data: ["conversation": shape], capacity: capacity)
            }
        }
        liveEvents = log
    }

    /// Records one event that is not a change of the stored conversations (typing).
    mutating func recordLiveEvent(type: String, data: JSONTree, conversationId: String, capacity: Int) {
        guard let conversation = conversations[conversationId] else { return }
        var log = liveEvents ?? LiveEventLog()
        log.append(audience: conversation.audience, type: type, data: data, capacity: capacity)
        liveEvents = log
    }

    /// Whether anything a live subscriber is told about differs.
    private static func differs(_ a: ConversationRecord, _ b: ConversationRecord) -> Bool {
        a.updateSequence != b.updateSequence || a.status != b.status || a.title != b.title
            || a.ownerUser != b.ownerUser || a.messages.count != b.messages.count || a.tags != b.tags
            || a.lastRead != b.lastRead || a.messages.last?.id != b.messages.last?.id
            || a.messages.last?.parts != b.messages.last?.parts
    }
}
