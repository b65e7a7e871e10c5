// ChatAPIServer.Quotas: what one identity may store, so that one device or user cannot fill the
// disk or slow the server for everyone. Checked inside the write transaction that would exceed
// them, so a refused write stores nothing.

extension ChatAPIServer {
    /// Per-identity limits (an identity is a signed-in user, else a device), each answered with a
    /// documented error and nothing stored:
    ///
    /// | limit | default | answer |
    /// | --- | --- | --- |
    /// | ``conversationsPerIdentity`` | 1,000 | 429 `QUOTA_CONVERSATIONS_EXCEEDED`, `Retry-After: 3600` |
    /// | ``messagesPerConversation`` | 2,000 | 413 `QUOTA_MESSAGES_EXCEEDED` |
    /// | ``storedBytesPerIdentity`` | 64 MiB | 413 `QUOTA_STORAGE_EXCEEDED` |
    /// | ``storeBudgetBytes`` (all identities) | 8 GiB | 507 `STORE_FULL` |
    ///
    /// ```swift
    /// var configuration = ChatAPIServer.Configuration()
    /// configuration.quotas.conversationsPerIdentity = 50
    /// ```
    public struct Quotas: Sendable, Hashable {
        /// Conversations one identity may own.
        public var conversationsPerIdentity: Int = 1_000
        /// Messages (the user's and the agent's) one conversation may hold.
        public var messagesPerConversation: Int = 2_000
        /// Bytes one identity stores: its messages' parts (UTF-8 JSON), its conversations' titles,
        /// its tags and its live events.
        public var storedBytesPerIdentity: Int = 64 << 20
        /// Bytes the whole database may use (its pages in use), whoever writes: device IDs cost
        /// nothing, so per-identity quotas alone do not bound the total. nil: no budget.
        public var storeBudgetBytes: Int? = 8 << 30

        /// The defaults above.
        public init() {}
    }
}

extension APIError {
    static let conversationQuota = APIError(
        status: 429, code: "QUOTA_CONVERSATIONS_EXCEEDED",
        message: "this identity has as many conversations as it may own", headers: [("Retry-After", "3600")])
    static let messageQuota = APIError(
        status: 413, code: "QUOTA_MESSAGES_EXCEEDED",
        message: "the conversation holds as many messages as it may; start a new one")
    static let storageQuota = APIError(
        status: 413, code: "QUOTA_STORAGE_EXCEEDED", message: "this identity's conversations hold as much as they may")
    static let storeBusy = APIError(
        status: 503, code: "STORE_BUSY", message: "every store connection is busy; try again",
        headers: [("Retry-After", "1")])
    static let streamsBusy = APIError(
        status: 503, code: "SERVICE_STREAMS_BUSY",
        message: "too many live streams are open from this address or network, or in all; try again",
        headers: [("Retry-After", "5")])
    static let storeFull = APIError(
        status: 507, code: "STORE_FULL", message: "the server's store holds as much as its budget allows")
}

extension ChatAPIHandlers {
    /// Throws the quota error when what `store`'s transaction wrote so far takes `caller`'s identity
    /// over ``ChatAPIServer/Quotas`` (the transaction then rolls back, storing nothing). Called by
    /// the handlers that add content, after their writes; `pendingBytes` are bytes about to be
    /// stored later (a streamed reply, stored when it ends).
    func checkQuotas(_ store: StoreTransaction, for caller: Caller, pendingBytes: Int = 0) throws {
        let quotas = configuration.quotas
        let changes = store.changes
        let usage = try store.usage(of: caller.ownerKey)
        if !changes.createdConversations.isEmpty, usage.conversations > quotas.conversationsPerIdentity {
            throw APIError.conversationQuota
        }
        for (id, appended) in changes.appendedMessages where !appended.isEmpty {
            if try store.messageCount(of: id) > quotas.messagesPerConversation { throw APIError.messageQuota }
        }
        if usage.bytes + pendingBytes > quotas.storedBytesPerIdentity { throw APIError.storageQuota }
        if let budget = quotas.storeBudgetBytes, try store.databaseBytes() + pendingBytes > budget {
            throw APIError.storeFull
        }
    }
}
