// HistoryStore+Messages: the cached messages of conversations, in the server's order.
//
// The server dates messages to the second, so messages written in the same second share a date.
// The cache keeps them in the order the server lists them with a number per row (`seq`), the
// tie-breaker after the date:
// - a message heard as it happens (a finished reply with the user's message before it, a live
//   event) goes above every cached row, and keeps its place when it is heard again;
// - a page from the server is the truth of its order: the newest page (no cursor) is numbered
//   above every cached row, an older page below them, each in the page's order;
// - a page is also the truth of what its span holds: a cached message dated strictly inside the
//   newest page's span that the page no longer holds is gone from the server and goes here too,
//   as do the messages a retry replaced (the server deletes the retried reply and all after it).
//
// A message's parts are rows of message_parts, each the part's wire JSON (one value per row), read
// back through the same decoder as the network's answers.

import ChatStream
import ChatStreamSQLite
import Foundation

extension HistoryStore {
    /// How a message came, which decides its place among messages of the same second.
    enum MessageSource {
        /// Heard as it happened (a reply, a live event): above every cached row when new, in
        /// place when already cached.
        case heard
        /// In the newest page of the conversation (no cursor): above every cached row, in the
        /// page's order.
        case newestPage
        /// In an older page: below every cached row, in the page's order.
        case olderPage
    }

    /// Stores (or replaces) `messages` of conversation `conversationId` under `scope`, oldest
    /// first, placed as `source` says. The newest page also drops the cached messages dated
    /// strictly inside its span that it does not hold (the server no longer has them).
    func save(messages: [Message], conversationId: String, scope: String, source: MessageSource = .heard) throws {
        guard !messages.isEmpty else { return }
        try write("saving messages") { database in
            if source == .newestPage, let oldest = messages.first?.date, let newest = messages.last?.date {
                try Self.deleteMessages(
                    of: conversationId, scope: scope, keeping: Set(messages.map { UUIDIdentifiers.normalized($0.id) }),
                    where: "created_at > ?3 AND created_at < ?4",
                    [oldest.timeIntervalSince1970, newest.timeIntervalSince1970], database)
            }
            var sequence: Int
            switch source {
            case .heard, .newestPage: sequence = try Self.nextMessageSequence(scope: scope, database)
            case .olderPage: sequence = try Self.lowestMessageSequence(scope: scope, database) - messages.count
            }
            for message in messages {
                try Self.upsert(
                    message, conversationId: conversationId, scope: scope, sequence: sequence,
                    keepsPlace: source == .heard, database)
                sequence += 1
            }
        }
    }

    /// Records a finished reply: its conversation, the user's message (when the server named it;
    /// dated as the reply, its place kept when already cached) and the agent's. A retry's reply
    /// (`retried`: the message it regenerated) first drops the retried message and every cached
    /// message after it, as the server did.
    func save(reply: ChatResponse, userText: String?, clientMessageId: String?, retried: String? = nil, scope: String)
        throws
    {
        try write("saving a reply") { database in
            let date = reply.message.date
            try touchConversation(id: reply.conversationId, at: date, scope: scope, database)
            if let retried {
                try Self.deleteMessages(from: retried, of: reply.conversationId, scope: scope, database)
            }
            var sequence = try Self.nextMessageSequence(scope: scope, database)
            if let userMessageId = reply.userMessageId, let userText {
                let user = Message(
                    id: userMessageId, text: userText, sender: .user, date: date, parts: [.text(userText)])
                try Self.upsert(
                    user, conversationId: reply.conversationId, scope: scope, clientMessageId: clientMessageId,
                    sequence: sequence, keepsPlace: true, keepsDate: true, database)
                sequence += 1
            }
            try Self.upsert(
                reply.message, conversationId: reply.conversationId, scope: scope, sequence: sequence, keepsPlace: true,
                database)
        }
    }

    /// A page of the cached messages of `conversationId`: the newest first page at offset 0, older
    /// ones after it; inside a page, oldest to newest (as the API pages them).
    func messages(scope: String, conversationId: String, offset: Int, limit: Int) throws -> (
        [Message], hasMore: Bool, total: Int
    ) {
        let conversationId = UUIDIdentifiers.normalized(conversationId)
        return try access("reading messages") { database in
            let total =
                try database.first(
                    "SELECT COUNT(*) FROM messages WHERE scope = ?1 AND conversation_id = ?2", [scope, conversationId]
                ) { $0.int(0) } ?? 0
            let rows = try database.query(
                """
                SELECT id, sender, created_at, feedback, score, client_message_id, interrupted FROM messages
                WHERE scope = ?1 AND conversation_id = ?2 ORDER BY created_at DESC, seq DESC LIMIT ?3 OFFSET ?4
                """, [scope, conversationId, limit, offset]
            ) { row in
                (
                    id: row.text(0), sender: row.text(1), date: row.double(2), feedback: row.optionalText(3),
                    score: row.isNull(4) ? nil : row.double(4), clientMessageId: row.optionalText(5),
                    interrupted: row.int(6) != 0
                )
            }
            var messages: [Message] = []
            for row in rows.reversed() {
                let parts = try database.query(
                    "SELECT part FROM message_parts WHERE scope = ?1 AND message_id = ?2 ORDER BY position",
                    [scope, row.id]
                ) { try JSONTree(parsing: Array($0.text(0).utf8)) }
                var object = JSONObject()
                object["id"] = .string(row.id)
                object["role"] = row.sender == "user" ? "user" : "assistant"
                object["parts"] = .array(parts)
                object["createdAt"] = .number(JSONNumber(row.date))
                object["feedback"] = row.feedback.map(JSONTree.string) ?? .null
                var metadata = JSONObject()
                if let score = row.score { metadata["score"] = .number(JSONNumber(score)) }
                if row.interrupted { metadata["interrupted"] = true }
                if !metadata.isEmpty { object["metadata"] = .object(metadata) }
                if let id = row.clientMessageId { object["clientMessageId"] = .string(id) }
                if let message = try WireDecoding.decodeValue(.object(object), WireDecoding.message) {
                    messages.append(message)
                }
            }
            return (messages, offset + rows.count < total, total)
        }
    }

    // MARK: Rows

    /// Inserts or replaces one message and its parts. `keepsPlace`: an already cached message
    /// keeps its `seq`; `keepsDate`: and its date (the date given is a guess).
    static func upsert(
        _ message: Message, conversationId: String, scope: String, clientMessageId: String? = nil, sequence: Int,
        keepsPlace: Bool, keepsDate: Bool = false, _ database: SQLiteDatabase
    ) throws {
        let id = UUIDIdentifiers.normalized(message.id)
        let conversationId = UUIDIdentifiers.normalized(conversationId)
        try database.run(
            """
            INSERT INTO messages(
                scope, id, conversation_id, sender, created_at, feedback, score, client_message_id, interrupted, seq)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT(scope, id) DO UPDATE SET conversation_id = excluded.conversation_id,
                sender = excluded.sender,
                created_at = \(keepsDate ? "created_at" : "excluded.created_at"), feedback = excluded.feedback,
                score = excluded.score, client_message_id = coalesce(excluded.client_message_id, client_message_id),
                interrupted = excluded.interrupted, seq = \(keepsPlace ? "seq" : "excluded.seq")
            """,
            [
                scope, id, conversationId, message.sender == .user ? "user" : "agent",
                message.date.timeIntervalSince1970, message.feedback?.rawValue, message.score,
                clientMessageId ?? message.clientMessageId, message.isInterrupted ? 1 : 0, sequence,
            ])
        try database.run("DELETE FROM message_parts WHERE scope = ?1 AND message_id = ?2", [scope, id])
        for (position, part) in message.assembledParts.enumerated() {
            try database.run(
                "INSERT INTO message_parts(scope, message_id, position, part) VALUES (?1, ?2, ?3, ?4)",
                [scope, id, position, part.jsonValue.jsonText])
        }
    }

    /// Above every cached message of `scope`.
    static func nextMessageSequence(scope: String, _ database: SQLiteDatabase) throws -> Int {
        try database.first("SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE scope = ?1", [scope]) { $0.int(0) }
            ?? 1
    }

    /// The lowest `seq` of the cached messages of `scope` (1 when none).
    static func lowestMessageSequence(scope: String, _ database: SQLiteDatabase) throws -> Int {
        try database.first("SELECT coalesce(min(seq), 1) FROM messages WHERE scope = ?1", [scope]) { $0.int(0) } ?? 1
    }

    /// Drops message `messageId` of `conversationId` and every cached message after it (nothing
    /// when it is not cached).
    static func deleteMessages(
        from messageId: String, of conversationId: String, scope: String, _ database: SQLiteDatabase
    ) throws {
        guard
            let (date, sequence) = try database.first(
                "SELECT created_at, seq FROM messages WHERE scope = ?1 AND id = ?2",
                [scope, UUIDIdentifiers.normalized(messageId)], { ($0.double(0), $0.int(1)) })
        else { return }
        try deleteMessages(
            of: conversationId, scope: scope, keeping: [],
            where: "(created_at > ?3 OR (created_at = ?3 AND seq >= ?4))", [date, sequence], database)
    }

    /// Drops the cached messages of `conversationId` matching `condition` (over `?3` and later
    /// `values`), except those in `kept`, with their parts.
    static func deleteMessages(
        of conversationId: String, scope: String, keeping kept: Set<String>, where condition: String,
        _ values: [any SQLiteBindable], _ database: SQLiteDatabase
    ) throws {
        let ids = try database.query(
            "SELECT id FROM messages WHERE scope = ?1 AND conversation_id = ?2 AND \(condition)",
            [scope, UUIDIdentifiers.normalized(conversationId)] as [any SQLiteBindable] + values
        ) { $0.text(0) }
        for id in ids where !kept.contains(id) {
            try database.run("DELETE FROM message_parts WHERE scope = ?1 AND message_id = ?2", [scope, id])
            try database.run("DELETE FROM messages WHERE scope = ?1 AND id = ?2", [scope, id])
        }
    }
}
