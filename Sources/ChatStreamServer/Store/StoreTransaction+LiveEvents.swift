// StoreTransaction+LiveEvents: the live-event log behind `GET /agents/{agentId}/events`, kept in
// the `events` table of the same database as the conversations.
//
// Every change to the store, from the API or from the server's own admin calls, becomes events in
// the same transaction: rather than each handler announcing what it did, the operations note what
// they touched (StoreChanges) and the write turns that into events just before it commits. A new
// conversation is `conversation.created`, each new message with parts `message.created`, and any
// other change to what a list shows `conversation.updated`, carrying the conversation as its
// audience sees it. Event IDs come from the table's AUTOINCREMENT key, so they strictly increase
// for every caller and are never reused. Each audience (a conversation's owner key) keeps its last
// `capacity` events; the newest ID pruned is kept per audience, and a resume from before it (or
// from an ID the log never gave) answers `reset`.

import ChatStream
import ChatStreamSQLite

/// One recorded live event.
struct LiveEventRecord: Sendable, Equatable {
    var id: Int
    var type: String
    var data: JSONTree
}

/// What a subscriber gets after an event ID.
enum LiveEventResumption: Equatable {
    /// Every later event of its audiences, oldest first.
    case events([LiveEventRecord])
    /// The log cannot tell what came after that ID: start again from the newest ID.
    case reset
}

extension StoreTransaction {
    /// Records the live events of what this transaction changed, keeping at most `capacity` per
    /// audience (each event recorded is also noted in ``changes``).
    func recordLiveEvents(capacity: Int) throws {
        guard !changes.conversations.isEmpty else { return }
        var changed: [ConversationRecord] = []
        for id in changes.conversations {
            if let record = try conversation(id) { changed.append(record) }
        }
        changed.sort { $0.updateSequence < $1.updateSequence }
        var audiences: Set<String> = []
        for record in changed {
            let audience = record.ownerKey
            audiences.insert(audience)
            let shape = WireShapes.conversation(try view(record, identity: audience), extensions: true)
            let created = changes.createdConversations.contains(record.id)
            if created {
                try appendEvent(audience: audience, type: "conversation.created", data: ["conversation": shape])
            }
            for message in try messages(sequences: changes.appendedMessages[record.id] ?? []) {
                guard !message.parts.isEmpty else { continue }
                let data: JSONTree = ["conversationId": .string(record.id), "message": WireShapes.message(message)]
                try appendEvent(audience: audience, type: "message.created", data: data)
            }
            if !created {
                try appendEvent(audience: audience, type: "conversation.updated", data: ["conversation": shape])
            }
        }
        changes.reset()
        for audience in audiences { try prune(audience: audience, capacity: capacity) }
    }

    /// Records one event about `conversationId` that is not a change of it (typing), for its audience.
    func recordLiveEvent(type: String, data: JSONTree, conversationId: String) throws {
        guard let record = try conversation(conversationId) else { return }
        try appendEvent(audience: record.ownerKey, type: type, data: data)
    }

    /// The events of `audiences` after `id` (or ``LiveEventResumption/reset`` when some may be
    /// missing), and the log's last ID.
    func liveEvents(after id: Int, audiences: [String]) throws -> (LiveEventResumption, lastId: Int) {
        let lastId = try lastEventId()
        guard id >= 0, id <= lastId else { return (.reset, lastId) }
        guard !audiences.isEmpty else { return (.events([]), lastId) }
        for audience in audiences {
            let evicted = try database.first(
                "SELECT through FROM event_evictions WHERE owner_key = ?1", [audience]
            ) { $0.int(0) }
            if let evicted, evicted > id { return (.reset, lastId) }
        }
        let placeholders = (0..<audiences.count).map { "?\($0 + 2)" }.joined(separator: ", ")
        let values: [any SQLiteBindable] = [id] + audiences
        let records = try database.query(
            "SELECT seq, type, data FROM events WHERE seq > ?1 AND owner_key IN (\(placeholders)) ORDER BY seq", values
        ) { row in
            LiveEventRecord(id: row.int(0), type: row.text(1), data: try JSONTree(parsing: row.text(2)))
        }
        return (.events(records), lastId)
    }

    /// The newest event ID given (0 before the first); it survives pruning.
    func lastEventId() throws -> Int {
        try database.first("SELECT seq FROM sqlite_sequence WHERE name = 'events'") { $0.int(0) } ?? 0
    }

    private func appendEvent(audience: String, type: String, data: JSONTree) throws {
        try database.run(
            "INSERT INTO events(owner_key, type, data, created_at) VALUES (?1, ?2, ?3, ?4)",
            [audience, type, data.jsonText, ChatAPIHandlers.now])
        changes.recorded(LiveEventRecord(id: database.lastInsertRowID, type: type, data: data), for: audience)
    }

    /// Drops `audience`'s events beyond its newest `capacity`, remembering the newest ID dropped.
    private func prune(audience: String, capacity: Int) throws {
        guard
            let boundary = try database.first(
                "SELECT seq FROM events WHERE owner_key = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2",
                [audience, max(1, capacity)], { $0.int(0) })
        else { return }
        try database.run("DELETE FROM events WHERE owner_key = ?1 AND seq <= ?2", [audience, boundary])
        try database.run(
            """
            INSERT INTO event_evictions(owner_key, through) VALUES (?1, ?2)
            ON CONFLICT(owner_key) DO UPDATE SET through = max(through, excluded.through)
            """,
            [audience, boundary])
        changes.evicted(audience, through: boundary)
    }

    /// Per audience, the newest event ID pruned.
    func eventEvictions() throws -> [String: Int] {
        Dictionary(
            try database.query("SELECT owner_key, through FROM event_evictions") { ($0.text(0), $0.int(1)) },
            uniquingKeysWith: max)
    }
}
