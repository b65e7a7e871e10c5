// Conversations, page cursors and the current conversation in the history store (messages are in
// HistoryStore+Messages). Local pages are read newest first, by offset; the local cursor is
// `local:<offset>`.

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
                conversation.tags.map(Self.tagLines), conversation.unreadCount, sequence,
            ])
    }

    /// `tags` one per line, the `tags` column's form: `joined(separator: "\n")` written out, as
    /// the standard library's generic one looks its associated types up at run time the first time
    /// (0.25 million instructions of every `chatstream chat`).
    static func tagLines(_ tags: [String]) -> String {
        var text = ""
        for index in tags.indices {
            if index > 0 { text += "\n" }
            text += tags[index]
        }
        return text
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
