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
// `capacity` events and at most `bytes` of their JSON (the newest one always); the newest ID pruned
// is kept per audience, and a resume from before it (or from an ID the log never gave) answers
// `reset`.
//
// Events are small whatever was stored: a conversation carries its bounded title and tags and the
// preview of its last message, and `message.created` carries the message whole only while its JSON
// is at most `inlineMessageBytes`; a longer one is sent as its preview with `"truncated": true`
// (clients fetch the history to show it). So a few cheap requests cannot make the log, the memory
// tail or a subscriber's stream hold megabytes per event.

import ChatStream
import ChatStreamSQLite

/// One recorded live event.
struct LiveEventRecord: Sendable, Equatable {
    var id: Int
    var type: String
    var data: JSONTree
}

/// How much of the live-event log one audience keeps and how large a message event may be.
struct LiveEventBounds: Sendable, Hashable {
    /// Events kept per audience (0: the live extension is off, nothing is recorded).
    var count: Int
    /// Bytes of event JSON kept per audience (the newest event is kept whatever its size).
    var bytes: Int = 1 << 20
    /// The largest message JSON a `message.created` carries whole; a longer one carries its preview.
    var inlineMessageBytes: Int = 4 << 10
}

/// A message as `message.created` carries it (whole, or its preview when too long), with its JSON.
struct LiveMessageShape {
    /// The message's store-wide sequence number.
    var sequence: Int
    var shape: JSONTree
    /// `shape` serialized.
    var json: [UInt8]
}

/// What a subscriber gets after an event ID.
enum LiveEventResumption: Equatable {
    /// Every later event of its audiences, oldest first.
    case events([LiveEventRecord])
    /// The log cannot tell what came after that ID: start again from the newest ID.
    case reset
}

extension StoreTransaction {
    /// Records the live events of what this transaction changed, keeping what `bounds` allows per
    /// audience (each event recorded is also noted in ``changes``).
    func recordLiveEvents(bounds: LiveEventBounds) throws {
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
            let messages = try liveMessageShapes(changes.appendedMessages[record.id] ?? [], bounds: bounds)
            for message in messages {
                // A streamed reply stored whole shows the agent typing around it, as a generated one does.
                let typed = changes.typedReplies.contains(message.sequence)
                if typed { try appendEvent(audience: audience, type: "typing", data: Self.typing(record.id, true)) }
                // The data's text is spliced from the message's JSON, made once (liveShape).
                let data: JSONTree = ["conversationId": .string(record.id), "message": message.shape]
                var text = Array(#"{"conversationId":"#.utf8)
                JSONTree.string(record.id).write(to: &text)
                text += #","message":"#.utf8
                text += message.json
                text.append(UInt8(ascii: "}"))
                try appendEvent(audience: audience, type: "message.created", data: data, text: text)
                if typed { try appendEvent(audience: audience, type: "typing", data: Self.typing(record.id, false)) }
            }
            if !created {
                try appendEvent(audience: audience, type: "conversation.updated", data: ["conversation": shape])
            }
        }
        changes.reset()
        for audience in audiences { try prune(audience: audience, bounds: bounds) }
    }

    /// The `typing` event's data for the agent in conversation `id`.
    static func typing(_ id: String, _ active: Bool) -> JSONTree {
        ["conversationId": .string(id), "participant": "agent", "active": .bool(active)]
    }

    /// The `message.created` shapes of the messages with these sequence numbers that have parts,
    /// oldest first. A message this transaction stored is shaped from what it noted (StoreChanges);
    /// any other is read back. A message whose stored parts alone pass the inline bound becomes its
    /// preview from its stored preview: its parts are neither serialized nor parsed under the write lock.
    func liveMessageShapes(_ sequences: [Int], bounds: LiveEventBounds) throws -> [LiveMessageShape] {
        guard !sequences.isEmpty else { return [] }
        var shapes: [Int: LiveMessageShape] = [:]
        var unread: [Int] = []
        for sequence in Set(sequences) {
            guard let noted = changes.storedMessages[sequence] else {
                unread.append(sequence)
                continue
            }
            guard noted.visible else { continue }
            let message = noted.record
            shapes[sequence] =
                noted.size <= bounds.inlineMessageBytes
                ? liveShape(of: message, inlineBytes: bounds.inlineMessageBytes)
                : truncatedShape(
                    sequence: sequence, id: message.id, role: message.role, createdAt: message.createdAt,
                    clientMessageId: message.clientMessageId, storedPreview: noted.preview)
        }
        if !unread.isEmpty {
            for shape in try readLiveMessageShapes(unread, bounds: bounds) { shapes[shape.sequence] = shape }
        }
        return shapes.values.sorted { $0.sequence < $1.sequence }
    }

    /// The `message.created` shapes of the visible messages with these sequence numbers, read from
    /// their rows (a message past the inline bound from its preview column alone).
    private func readLiveMessageShapes(_ sequences: [Int], bounds: LiveEventBounds) throws -> [LiveMessageShape] {
        let placeholders = sequences.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        let rows = try database.query(
            """
            SELECT seq, id, role, created_at, client_message_id, size, preview FROM messages
            WHERE seq IN (\(placeholders)) AND visible = 1 ORDER BY seq
            """,
            sequences
        ) { row in
            (
                sequence: row.int(0), id: row.text(1), role: row.text(2), createdAt: row.int(3),
                clientMessageId: row.optionalText(4), size: row.int(5), preview: row.text(6)
            )
        }
        var small: [Int] = []
        for row in rows where row.size <= bounds.inlineMessageBytes { small.append(row.sequence) }
        let whole = Dictionary(
            try messages(sequences: small).map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        return rows.map { row in
            if let message = whole[row.sequence] {
                return liveShape(of: message, inlineBytes: bounds.inlineMessageBytes)
            }
            return truncatedShape(
                sequence: row.sequence, id: row.id, role: row.role, createdAt: row.createdAt,
                clientMessageId: row.clientMessageId, storedPreview: row.preview)
        }
    }

    /// A message as `message.created` carries it: whole when its JSON is at most `inlineBytes`, else
    /// its preview as lists show it (one text part with the start of its text, `"truncated": true`).
    /// Its JSON is made once, for the bound and for the event's text.
    func liveShape(of message: MessageRecord, inlineBytes: Int) -> LiveMessageShape {
        let whole = WireShapes.message(message)
        let json = whole.jsonBytes
        guard json.count > inlineBytes else {
            return LiveMessageShape(sequence: message.sequence, shape: whole, json: json)
        }
        return truncatedShape(
            sequence: message.sequence, id: message.id, role: message.role, createdAt: message.createdAt,
            clientMessageId: message.clientMessageId, storedPreview: MessagePreview.stored(message.text))
    }

    /// The preview a too-long message's `message.created` carries (as lists show it, with
    /// `"truncated": true`), from its stored preview text.
    private func truncatedShape(
        sequence: Int, id: String, role: String, createdAt: Int, clientMessageId: String?, storedPreview: String
    ) -> LiveMessageShape {
        let length = min(max(0, previewLength), MessagePreview.storedLength)
        let shape = WireShapes.preview(
            MessagePreview(
                id: id, role: role, createdAt: createdAt, clientMessageId: clientMessageId,
                text: MessagePreview.shown(storedPreview, length: length), truncated: true))
        return LiveMessageShape(sequence: sequence, shape: shape, json: shape.jsonBytes)
    }

    /// Records one event about `conversationId` that is not a change of it (typing), for its audience.
    func recordLiveEvent(type: String, data: JSONTree, conversationId: String, bounds: LiveEventBounds) throws {
        guard let record = try conversation(conversationId) else { return }
        try appendEvent(audience: record.ownerKey, type: type, data: data)
        try prune(audience: record.ownerKey, bounds: bounds)
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
        let rows = try database.query(
            "SELECT seq, type, data FROM events WHERE seq > ?1 AND owner_key IN (\(placeholders)) ORDER BY seq", values
        ) { row in (id: row.int(0), type: row.text(1), data: row.text(2)) }
        var records: [LiveEventRecord] = []
        records.reserveCapacity(rows.count)
        for row in rows {
            // A row that no longer parses (a damaged page, an edit by hand) is skipped and counted,
            // so it cannot stall every subscriber resuming from before it.
            guard let data = try? JSONTree(parsing: row.data) else {
                LiveEventWarnings.unreadableRow(id: row.id, type: row.type)
                continue
            }
            records.append(LiveEventRecord(id: row.id, type: row.type, data: data))
        }
        return (.events(records), lastId)
    }

    /// The newest event ID given (0 before the first); it survives pruning.
    func lastEventId() throws -> Int {
        try database.first("SELECT seq FROM sqlite_sequence WHERE name = 'events'") { $0.int(0) } ?? 0
    }

    /// Appends an event with `data` (its JSON `text` when already made, else serialized here).
    private func appendEvent(audience: String, type: String, data: JSONTree, text: [UInt8]? = nil) throws {
        let text = text.map { String(decoding: $0, as: UTF8.self) } ?? data.jsonText
        let size = text.utf8.count
        try database.run(
            "INSERT INTO events(owner_key, type, data, created_at, size) VALUES (?1, ?2, ?3, ?4, ?5)",
            [audience, type, text, ChatAPIHandlers.now, size])
        changes.recorded(
            LiveEventRecord(id: database.lastInsertRowID, type: type, data: data), bytes: size, for: audience)
        changes.eventTotals[audience]?.count += 1
        changes.eventTotals[audience]?.bytes += size
    }

    /// Drops `audience`'s events beyond its newest `bounds.count`, or beyond `bounds.bytes` of JSON
    /// (keeping the newest), remembering the newest ID dropped.
    private func prune(audience: String, bounds: LiveEventBounds) throws {
        // Most writes leave the audience within both bounds: a plain count and sum over its rows
        // says so at a fraction of the window query's cost (a sorter and two window functions, run
        // on every write). Within both, no row is past either bound: the window's running total
        // never exceeds the sum, nor its row number the count.
        let (count, bytes) = try eventTotals(of: audience)
        guard count > max(1, bounds.count) || (count > 1 && bytes > max(0, bounds.bytes)) else { return }
        guard
            let boundary = try database.first(
                """
                SELECT seq FROM (
                    SELECT seq, row_number() OVER newest AS n, sum(size) OVER newest AS total
                    FROM events WHERE owner_key = ?1 WINDOW newest AS (ORDER BY seq DESC))
                WHERE n > ?2 OR (n > 1 AND total > ?3) ORDER BY seq DESC LIMIT 1
                """,
                [audience, max(1, bounds.count), max(0, bounds.bytes)], { $0.int(0) })
        else { return }
        try database.run("DELETE FROM events WHERE owner_key = ?1 AND seq <= ?2", [audience, boundary])
        changes.eventTotals[audience] = nil
        try database.run(
            """
            INSERT INTO event_evictions(owner_key, through) VALUES (?1, ?2)
            ON CONFLICT(owner_key) DO UPDATE SET through = max(through, excluded.through)
            """,
            [audience, boundary])
        changes.evicted(audience, through: boundary)
    }

    /// The bytes of event JSON the log holds for `audience` (counted in its storage quota).
    func eventBytes(of audience: String) throws -> Int {
        try eventTotals(of: audience).bytes
    }

    /// How many events the log holds for `audience` and the bytes of their JSON: read once per
    /// write and then kept up to date by ``appendEvent(audience:type:data:text:)`` (a chat's quota
    /// check and its pruning after its events both need them: one read instead of two).
    private func eventTotals(of audience: String) throws -> (count: Int, bytes: Int) {
        if let totals = changes.eventTotals[audience] { return totals }
        let totals =
            try database.first(
                "SELECT count(*), coalesce(sum(size), 0) FROM events WHERE owner_key = ?1", [audience]
            ) { (count: $0.int(0), bytes: $0.int(1)) } ?? (0, 0)
        changes.eventTotals[audience] = totals
        return totals
    }

    /// Per audience, the newest event ID pruned.
    func eventEvictions() throws -> [String: Int] {
        Dictionary(
            try database.query("SELECT owner_key, through FROM event_evictions") { ($0.text(0), $0.int(1)) },
            uniquingKeysWith: max)
    }
}
