// The list pages, read by keyset: a conversation page is at most `limit + 1` rows from the index on
// (owner_key, agent_id, update_seq) past the cursor's anchor, filters applied in SQL; a message page is at
// most `limit + 1` rows from the index on (conversation_id, seq). Nothing loads a whole list.

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
        var records = try database.query(
            """
            SELECT \(Self.conversationColumns) FROM conversations c WHERE \(pageFilter)
            ORDER BY c.update_seq \(query.ascending ? "ASC" : "DESC") LIMIT \(limit)
            """,
            values, Self.conversation)
        let hasMore = records.count > query.limit
        if hasMore { records.removeLast() }
        return (try records.map { try view($0, for: caller) }, hasMore, total)
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
