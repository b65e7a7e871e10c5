// StoreTransaction+Replies: a streamed reply's life in the database (PROTOCOLS.md section 8).
//
// A streamed reply is a row from its first event: appended empty (so hidden from history) with
// `reply_state = 'generating'`, its parts saved now and then while it generates (a checkpoint,
// still hidden, no live event), and ended once: finished (state NULL), stopped or interrupted,
// with its parts, size and preview, made visible and announced as `message.created`. Every write
// after the first only applies while the row is still `generating`, so of two ends racing (a stop
// and the generator's finish) exactly one is stored, and a late checkpoint never undoes an end.

import ChatStream

extension StoreTransaction {
    /// Appends an empty, generating agent reply (answering the user message `replyTo`, if any).
    @discardableResult
    func beginReply(
        id: String, in conversationId: String, replyTo: Int?, finishReason: String, now: Int
    ) throws -> MessageRecord {
        var record = try appendMessage(
            id: id, role: "assistant", parts: [], to: conversationId, now: now, replyTo: replyTo,
            finishReason: finishReason)
        try database.run("UPDATE messages SET reply_state = 'generating' WHERE seq = ?1", [record.sequence])
        record.replyState = .generating
        return record
    }

    /// Saves what a generating reply has so far (`events` of its events covered); nothing when it
    /// has ended. The row stays hidden and no live event is recorded.
    func saveReplyProgress(_ parts: [JSONTree], events: Int, ofMessage sequence: Int) throws {
        try database.run(
            "UPDATE messages SET parts = ?2, reply_events = ?3 WHERE seq = ?1 AND reply_state = 'generating'",
            [sequence, JSONTree.array(parts).jsonText, events])
        changes.forgetStoredMessage(sequence)
    }

    /// Ends a generating reply with `stored` (its parts' stored forms, made before the write
    /// lock): finished (`state` nil), stopped or interrupted. Returns false (and changes nothing)
    /// when it had already ended. The reply becomes visible with its parts (an empty one only when
    /// interrupted) and is announced (`message.created`) when the transaction records live events.
    func endReply(_ stored: StoredParts, state: ReplyState?, events: Int, ofMessage sequence: Int, now: Int) throws
        -> Bool
    {
        guard
            let (conversationId, oldSize, message) = try database.first(
                """
                SELECT conversation_id, size, id, role, created_at, client_message_id FROM messages
                WHERE seq = ?1 AND reply_state = 'generating'
                """, [sequence],
                { row in
                    (
                        row.text(0), row.int(1),
                        MessageRecord(
                            id: row.text(2), role: row.text(3), parts: stored.parts, createdAt: row.int(4),
                            sequence: sequence, clientMessageId: row.optionalText(5), replyState: state)
                    )
                })
        else { return false }
        let visible = !stored.parts.isEmpty || state == .interrupted
        try database.run(
            """
            UPDATE messages SET parts = ?2, visible = ?3, search_text = ?4, size = ?5, preview = ?6, reply_state = ?7,
                reply_events = ?8 WHERE seq = ?1
            """,
            [
                // An interrupted reply shows even empty (cut before its first part): a client shows
                // it failed and can retry it; without it the user's message reads unanswered.
                sequence, stored.json, visible, stored.searchText, stored.size,
                stored.preview, state?.rawValue, events,
            ])
        try database.run(
            "UPDATE conversations SET stored_bytes = stored_bytes + ?2 WHERE id = ?1",
            [conversationId, stored.size - oldSize])
        try touch(conversationId, now: now)
        changes.appended(sequence, to: conversationId)
        changes.stored(message, visible: visible, parts: stored)
        return true
    }

    /// Every reply still marked generating, with its conversation and the parts and event count of
    /// its last checkpoint (after a crash these are the replies the crash cut).
    func generatingReplies() throws -> [(sequence: Int, parts: [JSONTree], events: Int)] {
        try database.query("SELECT seq, parts, reply_events FROM messages WHERE reply_state = 'generating'") { row in
            (row.int(0), try JSONTree(parsing: row.text(1)).arrayValue ?? [], row.int(2))
        }
    }

    /// How many events a reply's stored parts cover (its last checkpoint, or all of them once ended).
    func replyEventCount(ofMessage sequence: Int) throws -> Int {
        try database.first("SELECT reply_events FROM messages WHERE seq = ?1", [sequence]) { $0.int(0) } ?? 0
    }
}
