// The list pages, read by keyset: a conversation page is at most `limit + 1` rows from the index on
// (owner_key, agent_id, update_seq) past the cursor's anchor, filters applied in SQL; a message page is at
// most `limit + 1` rows from the index on (conversation_id, seq). Nothing loads a whole list.
//
// A conversation page is three statements whatever its length: the total, the page's rows with each
// conversation's unread count and last visible message beside it (subqueries on the same indexes),
// and the page's tags in one query. (Read one conversation at a time, a page of 20 was 62 statements,
// and stepping them was most of a list request's SQLite time under load.)

import ChatStream
import ChatStreamSQLite

extension StoreTransaction {
    /// One page of `caller`'s conversations matching `query`, past `anchor` (an update sequence
    /// number), with whether more follow and how many match in all.
    func conversationPage(
        for caller: Caller, query: ListQuery, after anchor: Int?
    ) throws -> (items: [ConversationView], hasMore: Bool, total: Int) {
        var conditions = ["c.owner_key = ?1"]
        var values: [any SQLiteBindable] = [caller.ownerKey]
        if let agentId = caller.agentId {
            conditions.append("c.agent_id = ?2")
            values.append(agentId)
        }
        func parameter(_ value: any SQLiteBindable) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        var identityParameter: String?
        func identity() -> String {
            if let identityParameter { return identityParameter }
            let name = parameter(caller.ownerKey)
            identityParameter = name
            return name
        }
        if !query.statuses.isEmpty {
            let list = query.statuses.sorted().map { parameter($0) }.joined(separator: ", ")
            // A stored status this version does not know counts as `ongoing`, as clients read it.
            conditions.append(
                "(CASE WHEN c.status IN ('ongoing', 'ended', 'taken_over') THEN c.status ELSE 'ongoing' END) IN (\(list))"
            )
        }
        for tag in query.tags.sorted() {
            conditions.append(
                "EXISTS (SELECT 1 FROM tags t WHERE t.conversation_id = c.id AND t.identity = \(identity()) AND t.tag = \(parameter(tag)))"
            )
        }
        if query.unreadOnly {
            conditions.append(
                """
                EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.role != 'user' AND m.visible = 1
                AND m.seq > coalesce((SELECT last_seq FROM reads r WHERE r.conversation_id = c.id AND r.identity = \(identity())), 0))
                """)
        }
        if let search = query.search {
            let term = parameter(search)
            conditions.append(
                """
                (instr(c.title_search, \(term)) > 0 OR EXISTS (SELECT 1 FROM messages m
                WHERE m.conversation_id = c.id AND instr(m.search_text, \(term)) > 0))
                """)
        }
        let filter = conditions.joined(separator: " AND ")
        let total =
            try database.first("SELECT count(*) FROM conversations c WHERE \(filter)", values) { $0.int(0) } ?? 0
        var pageFilter = filter
        if let anchor {
            pageFilter += " AND c.update_seq \(query.ascending ? ">" : "<") \(parameter(anchor))"
        }
        let limit = parameter(query.limit + 1)
        let reader = identity()
        let previewLength = min(max(0, self.previewLength), MessagePreview.storedLength)
        var views = try database.query(
            """
            SELECT \(Self.conversationColumns),
            (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.role != 'user' AND m.visible = 1
            AND m.seq > coalesce((SELECT last_seq FROM reads r WHERE r.conversation_id = c.id AND r.identity = \(reader)), 0)),
            lm.id, lm.role, lm.created_at, lm.client_message_id, lm.preview
            FROM conversations c LEFT JOIN messages lm ON lm.seq = (SELECT m.seq FROM messages m
            WHERE m.conversation_id = c.id AND m.visible = 1 ORDER BY m.seq DESC LIMIT 1)
            WHERE \(pageFilter) ORDER BY c.update_seq \(query.ascending ? "ASC" : "DESC") LIMIT \(limit)
            """,
            values
        ) { row in
            ConversationView(
                record: Self.conversation(row), tags: [], unreadCount: row.int(9),
                lastMessage: row.optionalText(10).map { id in
                    MessagePreview(
                        stored: row.text(14), length: previewLength, id: id, role: row.text(11),
                        createdAt: row.int(12), clientMessageId: row.optionalText(13))
                })
        }
        let hasMore = views.count > query.limit
        if hasMore { views.removeLast() }
        let tags = try tags(of: views.map(\.record.id), identity: caller.ownerKey)
        for index in views.indices { views[index].tags = tags[views[index].record.id] ?? [] }
        return (views, hasMore, total)
    }

    /// `identity`'s tags on each of these conversations, in their order, read in one query.
    private func tags(of conversationIds: [String], identity: String) throws -> [String: [String]] {
        guard !conversationIds.isEmpty else { return [:] }
        let placeholders = conversationIds.indices.map { "?\($0 + 2)" }.joined(separator: ", ")
        var tags: [String: [String]] = [:]
        for (conversationId, tag) in try database.query(
            """
            SELECT conversation_id, tag FROM tags WHERE identity = ?1 AND conversation_id IN (\(placeholders))
            ORDER BY conversation_id, position
            """,
            [identity] + conversationIds, { ($0.text(0), $0.text(1)) })
        {
            tags[conversationId, default: []].append(tag)
        }
        return tags
    }

    /// One page of a conversation's visible messages older than `anchor` (a message sequence
    /// number): the newest `limit` of them, oldest first, with whether older ones remain and the total.
    func messagePage(
        of conversationId: String, limit: Int, before anchor: Int?
    ) throws -> (items: [MessageRecord], hasMore: Bool, total: Int) {
        let total =
            try database.first(
                "SELECT count(*) FROM messages WHERE conversation_id = ?1 AND visible = 1", [conversationId]
            ) { $0.int(0) } ?? 0
        var items = try database.query(
            """
            SELECT \(Self.messageColumns) FROM messages m WHERE m.conversation_id = ?1 AND m.visible = 1
            AND m.seq < ?2 ORDER BY m.seq DESC LIMIT ?3
            """,
            [conversationId, anchor ?? Int.max, limit + 1], Self.message)
        let hasMore = items.count > limit
        if hasMore { items.removeLast() }
        return (items.reversed(), hasMore, total)
    }
}
