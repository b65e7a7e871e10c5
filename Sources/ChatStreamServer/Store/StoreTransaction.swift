// StoreTransaction: the typed operations on the server's database, valid inside one
// ConversationStore.read or .write (conversations, messages, tags, reads, the sequence).
// Every change also notes which conversation it touched (StoreChanges), so the write can turn them
// into live events before it commits. The list pages live in StoreTransaction+Pages.swift and the
// live events in StoreTransaction+LiveEvents.swift.

import ChatStream
import ChatStreamSQLite

/// The operations handlers use on the store; only valid inside the closure it was handed to.
struct StoreTransaction {
    let database: SQLiteDatabase
    /// What this transaction changed so far (for its live events).
    let changes = StoreChanges()
    /// The most characters of a `lastMessage` preview (at most ``MessagePreview/storedLength``).
    var previewLength = 200

    // MARK: - Sequence

    /// The next number of the store-wide sequence. The counter is read once per write and
    /// written back once, by ``finish()``, which every write calls before it commits.
    func nextSequence() throws -> Int {
        let last =
            try changes.sequence?.last
            ?? database.first("SELECT value FROM counters WHERE name = 'sequence'") { $0.int(0) } ?? 0
        changes.sequence = (last + 1, true)
        return last + 1
    }

    /// Writes back what this write kept in memory: the stored bytes its conversations gained or
    /// lost (``addStoredBytes(_:to:)``) and, unless `savingSequence` is false (a batch of writes
    /// saves it once for all, ConversationStore.commit), the sequence's last number given, when
    /// it moved. Every write calls it before it commits.
    func finish(savingSequence: Bool = true) throws {
        try saveStoredBytes()
        guard savingSequence, let sequence = changes.sequence, sequence.moved else { return }
        try Self.saveSequence(sequence.last, in: database)
        changes.sequence = (sequence.last, false)
    }

    /// Stores `last` as the store-wide sequence's last number given.
    static func saveSequence(_ last: Int, in database: SQLiteDatabase) throws {
        try database.run("UPDATE counters SET value = ?1 WHERE name = 'sequence'", [last])
    }

    // MARK: - Conversations

    static let conversationColumns =
        "c.id, c.title, c.created_at, c.updated_at, c.update_seq, c.owner_device, c.owner_user, c.status, c.agent_id"

    static func conversation(_ row: borrowing SQLiteRow) -> ConversationRecord {
        ConversationRecord(
            id: row.text(0), title: row.optionalText(1), createdAt: row.int(2), updatedAt: row.int(3),
            updateSequence: row.int(4), ownerDevice: row.text(5), ownerUser: row.optionalText(6), status: row.text(7),
            agentId: row.optionalText(8))
    }

    /// The conversation `id`, nil when there is none.
    func conversation(_ id: String) throws -> ConversationRecord? {
        try database.first("SELECT \(Self.conversationColumns) FROM conversations c WHERE c.id = ?1", [id]) {
            Self.conversation($0)
        }
    }

    /// The conversation `id` if `caller` may use it; 404 otherwise. Another identity's conversation
    /// answers exactly as a missing one (no 403 that would confirm it exists).
    func conversation(_ id: String, for caller: Caller) throws -> ConversationRecord {
        guard let conversation = try conversation(id), caller.owns(conversation) else {
            throw APIError.conversationNotFound
        }
        return conversation
    }

    /// Stores a new conversation.
    func insert(_ conversation: ConversationRecord) throws {
        try database.run(
            """
            INSERT INTO conversations(id, title, title_search, created_at, updated_at, update_seq, owner_device,
                owner_user, owner_key, status, agent_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """,
            [
                conversation.id, conversation.title, conversation.title?.fastLowercased ?? "", conversation.createdAt,
                conversation.updatedAt, conversation.updateSequence, conversation.ownerDevice, conversation.ownerUser,
                conversation.ownerKey, conversation.status, conversation.agentId,
            ])
        changes.created(conversation.id)
    }

    /// A new conversation of `caller`'s, created now.
    func createConversation(id: String, title: String?, for caller: Caller, now: Int) throws -> ConversationRecord {
        let record = ConversationRecord(
            id: id, title: title, createdAt: now, updatedAt: now, updateSequence: try nextSequence(),
            ownerDevice: caller.deviceId, ownerUser: caller.userId, status: "ongoing", agentId: caller.agentId)
        try insert(record)
        return record
    }

    /// Marks a conversation changed now (bumps its list position), and stores the bytes its
    /// messages gained or lost in this write so far in the same statement.
    func touch(_ id: String, now: Int) throws {
        try database.run(
            "UPDATE conversations SET updated_at = ?2, update_seq = ?3, stored_bytes = stored_bytes + ?4 WHERE id = ?1",
            [id, now, try nextSequence(), changes.takeUnsavedStoredBytes(of: id)])
        changes.changed(id)
    }

    /// Sets a conversation's status.
    func setStatus(_ status: String, of id: String) throws {
        try database.run("UPDATE conversations SET status = ?2 WHERE id = ?1", [id, status])
        changes.changed(id)
    }

    /// Sets a conversation's title.
    func setTitle(_ title: String, of id: String) throws {
        try database.run(
            "UPDATE conversations SET title = ?2, title_search = ?3 WHERE id = ?1", [id, title, title.fastLowercased])
        changes.changed(id)
    }

    /// Gives every anonymous conversation of `device` to `user`; returns how many. The device's tags
    /// and read positions on them become the user's (tags only where the user has none of their own).
    @discardableResult
    func assignAnonymousConversations(ofDevice device: String, toUser user: String) throws -> Int {
        let ids = try database.query(
            "SELECT id FROM conversations WHERE owner_user IS NULL AND owner_device = ?1 ORDER BY update_seq", [device]
        ) { $0.text(0) }
        let deviceKey = Caller.ownerKey(user: nil, device: device)
        let userKey = Caller.ownerKey(user: user, device: device)
        for id in ids {
            try database.run(
                "UPDATE conversations SET owner_user = ?2, owner_key = ?3 WHERE id = ?1", [id, user, userKey])
            try database.run(
                """
                INSERT INTO tags(conversation_id, identity, position, tag)
                SELECT conversation_id, ?3, position, tag FROM tags WHERE conversation_id = ?1 AND identity = ?2
                AND NOT EXISTS (SELECT 1 FROM tags WHERE conversation_id = ?1 AND identity = ?3)
                """,
                [id, deviceKey, userKey])
            if let read = try database.first(
                "SELECT last_seq FROM reads WHERE conversation_id = ?1 AND identity = ?2", [id, deviceKey],
                { $0.int(0) })
            {
                try markRead(id, identity: userKey, upTo: read)
            }
            changes.changed(id)
        }
        return ids.count
    }

    /// The number of conversations stored.
    func conversationCount() throws -> Int {
        try database.first("SELECT count(*) FROM conversations") { $0.int(0) } ?? 0
    }

    // MARK: - Messages

    static let messageColumns = "m.id, m.role, m.parts, m.created_at, m.seq, m.client_message_id, m.reply_state"

    static func message(_ row: borrowing SQLiteRow) throws -> MessageRecord {
        let parts = try JSONTree(parsing: row.text(2)).arrayValue ?? []
        return MessageRecord(
            id: row.text(0), role: row.text(1), parts: parts, createdAt: row.int(3), sequence: row.int(4),
            clientMessageId: row.optionalText(5), replyState: row.optionalText(6).flatMap(ReplyState.init(rawValue:)))
    }

    /// Every message of a conversation, oldest first.
    func messages(of conversationId: String) throws -> [MessageRecord] {
        try database.query(
            "SELECT \(Self.messageColumns) FROM messages m WHERE m.conversation_id = ?1 ORDER BY m.seq",
            [conversationId], Self.message)
    }

    /// The messages with these sequence numbers, oldest first.
    func messages(sequences: [Int]) throws -> [MessageRecord] {
        guard !sequences.isEmpty else { return [] }
        let placeholders = sequences.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        return try database.query(
            "SELECT \(Self.messageColumns) FROM messages m WHERE m.seq IN (\(placeholders)) ORDER BY m.seq",
            sequences, Self.message)
    }

    /// The ID of a conversation's latest user message, nil when it has none.
    func lastUserMessageId(of conversationId: String) throws -> String? {
        try database.first(
            "SELECT id FROM messages WHERE conversation_id = ?1 AND role = 'user' ORDER BY seq DESC LIMIT 1",
            [conversationId]
        ) { $0.text(0) }
    }

    /// The message `id` of a conversation, nil when there is none.
    func message(_ id: String, in conversationId: String) throws -> MessageRecord? {
        try database.first(
            "SELECT \(Self.messageColumns) FROM messages m WHERE m.conversation_id = ?1 AND m.id = ?2",
            [conversationId, id], Self.message)
    }

    /// The user message a client sent with `clientMessageId` in a conversation, nil when there is none.
    func message(clientMessageId: String, in conversationId: String) throws -> MessageRecord? {
        try database.first(
            """
            SELECT \(Self.messageColumns) FROM messages m WHERE m.conversation_id = ?1 AND m.client_message_id = ?2
            """,
            [conversationId, clientMessageId], Self.message)
    }

    /// The user message sent with `clientMessageId` in any conversation of `caller`'s (with the
    /// caller's agent), with its conversation.
    func message(clientMessageId: String, for caller: Caller) throws -> (MessageRecord, String)? {
        try database.first(
            """
            SELECT \(Self.messageColumns), m.conversation_id FROM messages m
            JOIN conversations c ON c.id = m.conversation_id
            WHERE m.client_message_id = ?1 AND c.owner_key = ?2 AND (?3 IS NULL OR c.agent_id IS ?3)
            """,
            [clientMessageId, caller.ownerKey, caller.agentId]
        ) { row in (try Self.message(row), row.text(7)) }
    }

    /// The latest reply stored for the user message with sequence number `sequence`, with its finish reason.
    func reply(to sequence: Int) throws -> (MessageRecord, String)? {
        try database.first(
            """
            SELECT \(Self.messageColumns), m.finish_reason FROM messages m WHERE m.reply_to = ?1
            ORDER BY m.seq DESC LIMIT 1
            """,
            [sequence]
        ) { row in (try Self.message(row), row.optionalText(7) ?? "stop") }
    }

    /// Appends a message to a conversation and returns it (its sequence number taken now).
    @discardableResult
    func appendMessage(
        id: String, role: String, parts: [JSONTree], to conversationId: String, now: Int,
        clientMessageId: String? = nil, replyTo: Int? = nil, finishReason: String? = nil
    ) throws -> MessageRecord {
        try appendMessage(
            id: id, role: role, prepared: StoredParts(parts), to: conversationId, now: now,
            clientMessageId: clientMessageId, replyTo: replyTo, finishReason: finishReason)
    }

    /// Appends a message whose stored forms were computed before the transaction.
    @discardableResult
    func appendMessage(
        id: String, role: String, prepared: StoredParts, to conversationId: String, now: Int,
        clientMessageId: String? = nil, replyTo: Int? = nil, finishReason: String? = nil
    ) throws -> MessageRecord {
        let parts = prepared.parts
        let record = MessageRecord(
            id: id, role: role, parts: parts, createdAt: now, sequence: try nextSequence(),
            clientMessageId: clientMessageId)
        let json = prepared.json
        try database.run(
            """
            INSERT INTO messages(seq, id, conversation_id, role, parts, visible, search_text, created_at,
                client_message_id, reply_to, finish_reason, size, preview)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            """,
            [
                record.sequence, id, conversationId, role, json, !parts.isEmpty, prepared.searchText, now,
                clientMessageId, replyTo, finishReason, prepared.size, prepared.preview,
            ])
        addStoredBytes(prepared.size, to: conversationId)
        changes.appended(record.sequence, to: conversationId)
        changes.stored(record, visible: !parts.isEmpty, parts: prepared)
        return record
    }

    /// Replaces a message's parts.
    func setParts(_ parts: [JSONTree], ofMessage sequence: Int) throws {
        guard
            let (conversation, oldSize) = try database.first(
                "SELECT conversation_id, size FROM messages WHERE seq = ?1", [sequence], { ($0.text(0), $0.int(1)) })
        else { return }
        let json = JSONTree.array(parts).jsonText
        let text = MessageRecord.text(of: parts)
        try database.run(
            "UPDATE messages SET parts = ?2, visible = ?3, search_text = ?4, size = ?5, preview = ?6 WHERE seq = ?1",
            [
                sequence, json, !parts.isEmpty, text.fastLowercased, json.utf8.count, MessagePreview.stored(text),
            ])
        addStoredBytes(json.utf8.count - oldSize, to: conversation)
        changes.forgetStoredMessage(sequence)
        changes.changed(conversation)
    }

    /// Deletes a conversation's messages from sequence number `sequence` on.
    func deleteMessages(of conversationId: String, from sequence: Int) throws {
        let removed =
            try database.first(
                "SELECT coalesce(sum(size), 0) FROM messages WHERE conversation_id = ?1 AND seq >= ?2",
                [conversationId, sequence], { $0.int(0) }) ?? 0
        try database.run("DELETE FROM messages WHERE conversation_id = ?1 AND seq >= ?2", [conversationId, sequence])
        addStoredBytes(-removed, to: conversationId)
        changes.forgetStoredMessages(from: sequence)
        changes.changed(conversationId)
    }

    /// Adds `bytes` (negative to take away) to what a conversation's messages hold (for the
    /// per-identity quota). Kept in memory until the conversation's ``touch(_:now:)``, a
    /// ``usage(of:)`` or the write's ``finish()``: a chat appends two messages and touches their
    /// conversation, one statement instead of three.
    private func addStoredBytes(_ bytes: Int, to conversationId: String) {
        changes.addUnsavedStoredBytes(bytes, to: conversationId)
    }

    /// Stores every conversation's bytes noted by ``addStoredBytes(_:to:)`` and not stored yet.
    private func saveStoredBytes() throws {
        for (conversationId, bytes) in changes.takeUnsavedStoredBytes() {
            try database.run(
                "UPDATE conversations SET stored_bytes = stored_bytes + ?2 WHERE id = ?1", [conversationId, bytes])
        }
    }

    // MARK: - Quotas

    /// What an identity (an owner key) holds: its conversations, and the bytes of their messages,
    /// titles and its tags on them, and of its live events.
    func usage(of ownerKey: String) throws -> (conversations: Int, bytes: Int) {
        try saveStoredBytes()
        let (count, bytes) =
            try database.first(
                """
                SELECT count(*), coalesce(sum(c.stored_bytes + coalesce(length(CAST(c.title AS BLOB)), 0)
                    + (SELECT coalesce(sum(length(CAST(t.tag AS BLOB))), 0) FROM tags t
                       WHERE t.conversation_id = c.id AND t.identity = ?1)), 0)
                FROM conversations c WHERE c.owner_key = ?1
                """,
                [ownerKey]
            ) { ($0.int(0), $0.int(1)) } ?? (0, 0)
        return (count, bytes + (try eventBytes(of: ownerKey)))
    }

    /// The bytes the database file holds in use (its pages less the free ones), for the store budget.
    func databaseBytes() throws -> Int {
        let pages = try database.first("PRAGMA page_count") { $0.int(0) } ?? 0
        let free = try database.first("PRAGMA freelist_count") { $0.int(0) } ?? 0
        return (pages - free) * (try database.pageSize)
    }

    /// The number of messages a conversation holds.
    func messageCount(of conversationId: String) throws -> Int {
        try database.first("SELECT count(*) FROM messages WHERE conversation_id = ?1", [conversationId]) {
            $0.int(0)
        } ?? 0
    }

    // MARK: - Tags and reads

    /// `identity`'s tags on a conversation, in the order they were set. An identity is a
    /// ``Caller/ownerKey``: the signed-in user (from every device), else the device.
    func tags(of conversationId: String, identity: String) throws -> [String] {
        try database.query(
            "SELECT tag FROM tags WHERE conversation_id = ?1 AND identity = ?2 ORDER BY position",
            [conversationId, identity]
        ) { $0.text(0) }
    }

    /// Replaces `identity`'s tags on a conversation.
    func setTags(_ tags: [String], of conversationId: String, identity: String) throws {
        try database.run("DELETE FROM tags WHERE conversation_id = ?1 AND identity = ?2", [conversationId, identity])
        for (position, tag) in tags.enumerated() {
            try database.run(
                "INSERT INTO tags(conversation_id, identity, position, tag) VALUES (?1, ?2, ?3, ?4)",
                [conversationId, identity, position, tag])
        }
        changes.changed(conversationId)
    }

    /// Moves `identity`'s read position on a conversation forward to `sequence` (never back).
    func markRead(_ conversationId: String, identity: String, upTo sequence: Int) throws {
        let moved = try database.run(
            """
            INSERT INTO reads(conversation_id, identity, last_seq) VALUES (?1, ?2, ?3)
            ON CONFLICT(conversation_id, identity) DO UPDATE SET last_seq = excluded.last_seq
            WHERE excluded.last_seq > last_seq
            """,
            [conversationId, identity, sequence])
        if moved > 0 { changes.changed(conversationId) }
    }

    /// Agent messages (with parts) after `identity`'s last read.
    func unreadCount(of conversationId: String, identity: String) throws -> Int {
        try database.first(
            """
            SELECT count(*) FROM messages m WHERE m.conversation_id = ?1 AND m.role != 'user' AND m.visible = 1
            AND m.seq > coalesce((SELECT last_seq FROM reads WHERE conversation_id = ?1 AND identity = ?2), 0)
            """,
            [conversationId, identity]
        ) { $0.int(0) } ?? 0
    }

    /// A preview of the latest message with parts of a conversation: its text cut at `previewLength`
    /// characters, read from the stored preview (the parts themselves are not loaded).
    func lastVisibleMessage(of conversationId: String) throws -> MessagePreview? {
        let length = min(max(0, previewLength), MessagePreview.storedLength)
        return try database.first(
            """
            SELECT m.id, m.role, m.created_at, m.client_message_id, m.preview FROM messages m
            WHERE m.conversation_id = ?1 AND m.visible = 1 ORDER BY m.seq DESC LIMIT 1
            """,
            [conversationId]
        ) { row in
            MessagePreview(
                stored: row.text(4), length: length, id: row.text(0), role: row.text(1), createdAt: row.int(2),
                clientMessageId: row.optionalText(3))
        }
    }

    /// The conversation as `caller` sees it (its tags, unread count and last message).
    func view(_ record: ConversationRecord, for caller: Caller) throws -> ConversationView {
        try view(record, identity: caller.ownerKey)
    }

    /// The conversation as `identity` (a ``Caller/ownerKey``) sees it.
    func view(_ record: ConversationRecord, identity: String) throws -> ConversationView {
        ConversationView(
            record: record, tags: try tags(of: record.id, identity: identity),
            unreadCount: try unreadCount(of: record.id, identity: identity),
            lastMessage: try lastVisibleMessage(of: record.id))
    }
}
