// Conversations, messages, page cursors and the current conversation in the history store.
//
// A message's parts are rows of message_parts, each the part's wire JSON (one value per row), read
// back through the same decoder as the network's answers. Local pages are read newest first, by
// offset; the local cursor is `local:<offset>`.

import ChatStream
import ChatStreamSQLite
import Foundation

extension HistoryStore {
    // MARK: Conversations

    /// Where a page of conversations belongs in the server's order of changes: ``top`` (a first
    /// page newest first, a later page of an oldest-first list, a single changed conversation)
    /// or ``bottom`` (a later page newest first, the first page of an oldest-first list).
    enum PagePlacement {
        case top, bottom
    }

    /// Stores (or replaces) `conversations` under `scope`, a page in the server's order
    /// (`ascending`: oldest change first). Ties of `updatedAt` keep the server's order at every
    /// page size: each row gets a sequence number in the server's order of changes, above every
    /// cached row for a page at the ``PagePlacement/top``, below every one for a page at the
    /// ``PagePlacement/bottom`` (a later page holds what changed before the pages already read).
    func save(
        conversations: [Conversation], scope: String, ascending: Bool = false, placement: PagePlacement = .top
    ) throws {
        guard !conversations.isEmpty else { return }
        let newestFirst = ascending ? Array(conversations.reversed()) : conversations
        try write("saving conversations") { database in
            switch placement {
            case .top:
                var sequence = try Self.nextSequence(scope: scope, database)
                for conversation in newestFirst.reversed() {
                    try Self.upsert(conversation, scope: scope, sequence: sequence, database)
                    sequence += 1
                }
            case .bottom:
                var sequence =
                    try database.first("SELECT coalesce(min(seq), 1) - 1 FROM conversations WHERE scope = ?1", [scope])
                {
                    $0.int(0)
                } ?? 0
                for conversation in newestFirst {
                    try Self.upsert(conversation, scope: scope, sequence: sequence, database)
                    sequence -= 1
                }
            }
        }
    }

    /// The next value of the conversations' tie-breaking sequence in `scope`.
    static func nextSequence(scope: String, _ database: SQLiteDatabase) throws -> Int {
        try database.first("SELECT coalesce(max(seq), 0) + 1 FROM conversations WHERE scope = ?1", [scope]) {
            $0.int(0)
        } ?? 1
    }

    static func upsert(_ conversation: Conversation, scope: String, sequence: Int, _ database: SQLiteDatabase) throws {
        try database.run(
            """
            INSERT INTO conversations(
                scope, id, title, created_at, updated_at, user_id, status, tags, unread_count, seq)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT(scope, id) DO UPDATE SET title = excluded.title, created_at = excluded.created_at,
                updated_at = excluded.updated_at, user_id = excluded.user_id, status = excluded.status,
                tags = excluded.tags, unread_count = excluded.unread_count, seq = excluded.seq
            """,
            [
                scope, UUIDIdentifiers.normalized(conversation.id), conversation.title,
                conversation.createdAt.timeIntervalSince1970,
                conversation.updatedAt.timeIntervalSince1970, conversation.userId, conversation.rawStatus,
                conversation.tags.map { $0.joined(separator: "\n") }, conversation.unreadCount, sequence,
            ])
    }

    /// Notes a reply in conversation `id`: creates its row when missing, else moves its `updatedAt`.
    func touchConversation(id: String, at date: Date, scope: String, _ database: SQLiteDatabase) throws {
        let seconds = date.timeIntervalSince1970
        try database.run(
            """
            INSERT INTO conversations(
                scope, id, title, created_at, updated_at, user_id, status, tags, unread_count, seq)
            VALUES (?1, ?2, NULL, ?3, ?3, NULL, 'ongoing', NULL, NULL, ?4)
            ON CONFLICT(scope, id) DO UPDATE SET updated_at = max(updated_at, excluded.updated_at), seq = excluded.seq
            """, [scope, UUIDIdentifiers.normalized(id), seconds, try Self.nextSequence(scope: scope, database)])
    }

    /// The cached conversations of `scope` matching `query`, in its order (newest change first
    /// unless ascending), from `offset`. Without filters the page is read in SQL (the index on
    /// `updatedAt`); with them the scope's rows are filtered here. Search matches titles only.
    func conversations(scope: String, query: ConversationQuery, offset: Int, limit: Int) throws -> (
        [Conversation], hasMore: Bool, total: Int
    ) {
        let columns = "id, title, created_at, updated_at, user_id, status, tags, unread_count"
        let filtered =
            !query.statuses.isEmpty || !query.tags.isEmpty || query.unreadOnly || !(query.search ?? "").isEmpty
        if !filtered {
            let direction = query.order == .ascending ? "ASC" : "DESC"
            return try access("reading conversations") { database in
                let total =
                    try database.first("SELECT COUNT(*) FROM conversations WHERE scope = ?1", [scope]) { $0.int(0) }
                    ?? 0
                let page = try database.query(
                    """
                    SELECT \(columns) FROM conversations WHERE scope = ?1
                    ORDER BY updated_at \(direction), seq \(direction) LIMIT ?2 OFFSET ?3
                    """, [scope, limit, offset], Self.conversation)
                return (page, offset + page.count < total, total)
            }
        }
        let all = try access("reading conversations") { database in
            try database.query(
                "SELECT \(columns) FROM conversations WHERE scope = ?1 ORDER BY updated_at DESC, seq DESC", [scope],
                Self.conversation)
        }
        var matching = all.filter { conversation in
            if !query.statuses.isEmpty, !query.statuses.contains(conversation.status) { return false }
            if !query.tags.isEmpty, !Set(query.tags).isSubset(of: conversation.tags ?? []) { return false }
            if query.unreadOnly, (conversation.unreadCount ?? 0) == 0 { return false }
            if let search = query.search, !search.isEmpty,
                !(conversation.title ?? "").localizedCaseInsensitiveContains(search)
            {
                return false
            }
            return true
        }
        if query.order == .ascending { matching.reverse() }
        let start = min(offset, matching.count)
        let end = min(matching.count, start + limit)
        return (Array(matching[start..<end]), end < matching.count, matching.count)
    }

    /// The cached conversation `id` of `scope`, if any.
    func conversation(id: String, scope: String) throws -> Conversation? {
        try access("reading a conversation") { database in
            try database.first(
                """
                SELECT id, title, created_at, updated_at, user_id, status, tags, unread_count FROM conversations
                WHERE scope = ?1 AND id = ?2
                """, [scope, UUIDIdentifiers.normalized(id)], Self.conversation)
        }
    }

    /// A conversation from a row of `id, title, created_at, updated_at, user_id, status, tags, unread_count`.
    static func conversation(_ row: borrowing SQLiteRow) -> Conversation {
        Conversation(
            id: row.text(0), title: row.optionalText(1), createdAt: Date(timeIntervalSince1970: row.double(2)),
            updatedAt: Date(timeIntervalSince1970: row.double(3)), userId: row.optionalText(4),
            wireStatus: row.text(5),
            tags: row.optionalText(6).map { $0.isEmpty ? [] : $0.components(separatedBy: "\n") },
            unreadCount: row.optionalInt(7), lastMessage: nil)
    }

    // MARK: Messages

    /// Stores (or replaces) `messages` of conversation `conversationId` under `scope`.
    func save(messages: [Message], conversationId: String, scope: String) throws {
        guard !messages.isEmpty else { return }
        try write("saving messages") { database in
            for message in messages {
                try Self.upsert(message, conversationId: conversationId, scope: scope, database)
            }
        }
    }

    static func upsert(
        _ message: Message, conversationId: String, scope: String, clientMessageId: String? = nil,
        _ database: SQLiteDatabase
    ) throws {
        let id = UUIDIdentifiers.normalized(message.id)
        let conversationId = UUIDIdentifiers.normalized(conversationId)
        try database.run(
            """
            INSERT INTO messages(
                scope, id, conversation_id, sender, created_at, feedback, score, client_message_id, interrupted)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT(scope, id) DO UPDATE SET conversation_id = excluded.conversation_id,
                sender = excluded.sender, created_at = excluded.created_at, feedback = excluded.feedback,
                score = excluded.score, client_message_id = coalesce(excluded.client_message_id, client_message_id),
                interrupted = excluded.interrupted
            """,
            [
                scope, id, conversationId, message.sender == .user ? "user" : "agent",
                message.date.timeIntervalSince1970, message.feedback?.rawValue, message.score,
                clientMessageId ?? message.clientMessageId, message.isInterrupted ? 1 : 0,
            ])
        try database.run("DELETE FROM message_parts WHERE scope = ?1 AND message_id = ?2", [scope, id])
        for (position, part) in message.assembledParts.enumerated() {
            try database.run(
                "INSERT INTO message_parts(scope, message_id, position, part) VALUES (?1, ?2, ?3, ?4)",
                [scope, id, position, part.jsonValue.jsonText])
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
                WHERE scope = ?1 AND conversation_id = ?2 ORDER BY created_at DESC, rowid DESC LIMIT ?3 OFFSET ?4
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

    // MARK: Replies

    /// Records a finished reply: its conversation, the user's message (when the server named it)
    /// and the agent's.
    func save(reply: ChatResponse, userText: String?, clientMessageId: String?, scope: String) throws {
        try write("saving a reply") { database in
            let now = reply.message.date
            try touchConversation(id: reply.conversationId, at: now, scope: scope, database)
            if let userMessageId = reply.userMessageId, let userText {
                let user = Message(
                    id: userMessageId, text: userText, sender: .user, date: now.addingTimeInterval(-0.001),
                    parts: [.text(userText)])
                try Self.upsert(
                    user, conversationId: reply.conversationId, scope: scope, clientMessageId: clientMessageId,
                    database)
            }
            try Self.upsert(reply.message, conversationId: reply.conversationId, scope: scope, database)
        }
    }

    // MARK: Page cursors

    /// Records the cursor the server gave after the page that `after` (empty: the first) asked for.
    func save(cursor next: String?, hasMore: Bool, total: Int, list: String, after: String?, scope: String) throws {
        try write("saving a cursor") { database in
            try database.run(
                """
                INSERT INTO page_cursors(scope, list, after, next, has_more, total, fetched_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT(scope, list, after) DO UPDATE SET next = excluded.next, has_more = excluded.has_more,
                    total = excluded.total, fetched_at = excluded.fetched_at
                """, [scope, list, after ?? "", next, hasMore, total, Date().timeIntervalSince1970])
        }
    }

    /// The cursor recorded after the page `after` asked for (empty: the first), with `hasMore`.
    func cursor(list: String, after: String?, scope: String) throws -> (next: String?, hasMore: Bool)? {
        try access("reading a cursor") { database in
            try database.first(
                "SELECT next, has_more FROM page_cursors WHERE scope = ?1 AND list = ?2 AND after = ?3",
                [scope, list, after ?? ""]
            ) { ($0.optionalText(0), $0.int(1) != 0) }
        }
    }

    // MARK: Current conversation

    /// The current conversation saved for `scope`.
    func currentConversation(scope: String) throws -> String? {
        try access("reading the current conversation") { database in
            try database.first(
                "SELECT conversation_id FROM current_conversation WHERE scope = ?1", [scope]
            ) { $0.text(0) }
        }
    }

    /// Saves (nil: forgets) the current conversation of `scope`.
    func setCurrentConversation(_ id: String?, scope: String) throws {
        try write("saving the current conversation") { database in
            if let id {
                try database.run(
                    """
                    INSERT INTO current_conversation(scope, conversation_id) VALUES (?1, ?2)
                    ON CONFLICT(scope) DO UPDATE SET conversation_id = excluded.conversation_id
                    """, [scope, UUIDIdentifiers.normalized(id)])
            } else {
                try database.run("DELETE FROM current_conversation WHERE scope = ?1", [scope])
            }
        }
    }
}
