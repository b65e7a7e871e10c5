// History: paged lists of conversations and messages (PROTOCOLS.md section 1), as pages and as
// walks. Limits are checked before any request; where a page comes from (the server, the store,
// the store when the server cannot be reached) is the HistoryRepository's policy.

import ChatStream
import Foundation

extension ChatbaseClient {
    /// The valid page sizes.
    public static let limitRange = 1...100

    /// The local/network policy of the lists.
    var history: HistoryRepository { HistoryRepository(client: self) }

    static func validate(limit: Int?) throws {
        if let limit, !limitRange.contains(limit) {
            throw APIError.invalidArgument("limit", "must be between 1 and 100, got \(limit)")
        }
    }

    /// A page of the caller's conversations, newest first.
    ///
    /// ```swift
    /// let page = try await client.listConversations(limit: 20)
    /// let next = try await page.loadMore()  // nil at the end
    /// ```
    /// `source` says where to read (default ``HistorySource/network``; see ``HistorySource``).
    ///
    /// - Throws: `400 VALIDATION_INVALID_BODY` (an ``APIError``) (before any request) when `limit` is outside 1...100.
    public func listConversations(cursor: String? = nil, limit: Int? = nil, source: HistorySource = .network)
        async throws -> PaginatedResponse<Conversation>
    {
        try await listConversations(ConversationQuery(limit: limit), cursor: cursor, source: source)
    }

    /// A page of conversations matching `query`.
    ///
    /// ```swift
    /// let page = try await client.listConversations(ConversationQuery().limit(20).status(.ongoing).tag("vip"))
    /// ```
    /// - Throws: `400 VALIDATION_INVALID_BODY` (an ``APIError``) (before any request) when the limit is outside
    ///   1...100; ``APIError/isNotSupportedByServer`` when the query filters or orders
    ///   (``ConversationQuery/usesExtensions``) and the server lacks the extensions (it answers
    ///   conversations without `tags` and `unreadCount`; an empty page cannot tell and is returned).
    ///
    /// With `source: .local` the page comes from the ``store`` (its filters applied there; search
    /// matches titles only); with `.localThenNetwork`, from the server, or from the store when
    /// the server cannot be reached.
    public func listConversations(_ query: ConversationQuery, cursor: String? = nil, source: HistorySource = .network)
        async throws -> PaginatedResponse<Conversation>
    {
        try Self.validate(limit: query.limit)
        return try await history.conversations(query, cursor: cursor, source: source)
    }

    /// The first page of conversations matching `query` as `source` gives it: with
    /// ``HistorySource/localThenNetwork`` (the default) the cached page at once (when the store
    /// holds any), then the server's. Each page's ``PaginatedResponse/loadMore()`` continues
    /// from where it came from.
    ///
    /// ```swift
    /// for try await page in client.conversationPages(ConversationQuery(limit: 20)) {
    ///     rows = page.data  // instantly from the cache, then replaced by the server's page
    /// }
    /// ```
    public func conversationPages(
        _ query: ConversationQuery = ConversationQuery(), source: HistorySource = .localThenNetwork
    )
        -> AsyncThrowingStream<PaginatedResponse<Conversation>, any Error>
    {
        history.pages(source: source) { [self] local in
            try await listConversations(query, source: local ? .local : .network)
        }
    }

    /// The newest page of a conversation's messages as `source` gives it (see
    /// ``conversationPages(_:source:)``).
    public func messagePages(conversationId: String, limit: Int? = nil, source: HistorySource = .localThenNetwork)
        -> AsyncThrowingStream<PaginatedResponse<Message>, any Error>
    {
        history.pages(source: source) { [self] local in
            try await listMessages(conversationId: conversationId, limit: limit, source: local ? .local : .network)
        }
    }

    /// A page of a conversation's messages: the first page holds the newest, each later page
    /// older ones; inside a page, oldest to newest. Messages with no parts are skipped, so a page
    /// may hold fewer than `limit` while ``PaginatedResponse/hasMore`` is true.
    ///
    /// ```swift
    /// let page = try await client.listMessages(conversationId: id, limit: 50)
    /// ```
    ///
    /// `source` as for ``listConversations(_:cursor:source:)``: `.local` reads the ``store``,
    /// `.localThenNetwork` falls back to it when the server cannot be reached.
    public func listMessages(
        conversationId: String, cursor: String? = nil, limit: Int? = nil, source: HistorySource = .network
    ) async throws -> PaginatedResponse<Message> {
        try Self.validate(limit: limit)
        return try await history.messages(conversationId: conversationId, cursor: cursor, limit: limit, source: source)
    }

    /// Every conversation matching `query`, fetching pages only as iteration needs them.
    ///
    /// Each conversation that existed when the walk began comes exactly once, even when it is
    /// updated during the walk (it then comes at the end, as it is then); see
    /// ``AsyncPaginatedSequence``. With ``HistorySource/localThenNetwork`` (the default) the
    /// cached first page comes at once, then the server's pages bring the rest (none twice);
    /// ``HistorySource/local`` walks the cache only.
    ///
    /// ```swift
    /// for try await conversation in client.conversations(matching: ConversationQuery().status(.ongoing)) {
    ///     print(conversation.id)
    /// }
    /// ```
    public func conversations(
        matching query: ConversationQuery = ConversationQuery(), source: HistorySource = .localThenNetwork
    ) -> AsyncPaginatedSequence<Conversation> {
        if source == .local {
            return AsyncPaginatedSequence(order: .pageOrder) { [self] in
                try await listConversations(query, source: .local)
            }
        }
        let refresh = AsyncPaginatedSequence<Conversation>.Refresh(
            top: { [self] in try await listConversations(query.newestChangeFirst) }, isUnchanged: { $0 == $1 })
        var cached: (@Sendable () async throws -> [Conversation])? = nil
        if source == .localThenNetwork && store != nil {
            cached = { @Sendable [self] in try await listConversations(query, source: .local).data }
        }
        return AsyncPaginatedSequence(order: .pageOrder, refresh: refresh, cached: cached) { [self] in
            try await listConversations(query)
        }
    }

    /// Every message of a conversation, newest first (going back in time), fetching pages only as
    /// iteration needs them; `source` as for ``conversations(matching:source:)``.
    ///
    /// ```swift
    /// for try await message in client.messages(in: id, pageSize: 50) { print(message.text) }
    /// ```
    public func messages(in conversationId: String, pageSize: Int? = nil, source: HistorySource = .localThenNetwork)
        -> AsyncPaginatedSequence<Message>
    {
        if source == .local {
            return AsyncPaginatedSequence(order: .reversedWithinPage) { [self] in
                try await listMessages(conversationId: conversationId, limit: pageSize, source: .local)
            }
        }
        var cached: (@Sendable () async throws -> [Message])? = nil
        if source == .localThenNetwork && store != nil {
            cached = { @Sendable [self] in
                Array(
                    try await listMessages(conversationId: conversationId, limit: pageSize, source: .local).data
                        .reversed())
            }
        }
        return AsyncPaginatedSequence(order: .reversedWithinPage, cached: cached) { [self] in
            try await listMessages(conversationId: conversationId, limit: pageSize)
        }
    }
}
