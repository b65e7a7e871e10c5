// History: paged lists of conversations and messages (PROTOCOLS.md section 1), and the
// conversation-management extensions (section 5). Limits are checked before any request.

import ChatStream
import Foundation

extension ChatbaseClient {
    /// The valid page sizes.
    public static let limitRange = 1...100

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
        switch source {
        case .network:
            return try await conversationPage(query: query, cursor: cursor, limit: query.limit)
        case .local:
            return try localConversationPage(query, offset: Self.localOffset(cursor))
        case .localThenNetwork:
            do {
                return try await conversationPage(query: query, cursor: cursor, limit: query.limit)
            } catch  where store != nil && Self.isPassingFailure(error) {
                return try localConversationPage(query, offset: Self.localOffset(cursor))
            }
        }
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
        pages(source: source) { [self] local in
            try await listConversations(query, source: local ? .local : .network)
        }
    }

    /// The newest page of a conversation's messages as `source` gives it (see
    /// ``conversationPages(_:source:)``).
    public func messagePages(conversationId: String, limit: Int? = nil, source: HistorySource = .localThenNetwork)
        -> AsyncThrowingStream<PaginatedResponse<Message>, any Error>
    {
        pages(source: source) { [self] local in
            try await listMessages(conversationId: conversationId, limit: limit, source: local ? .local : .network)
        }
    }

    private func pages<Item: Sendable>(
        source: HistorySource, _ fetch: @escaping @Sendable (_ local: Bool) async throws -> PaginatedResponse<Item>
    ) -> AsyncThrowingStream<PaginatedResponse<Item>, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    if source != .network {
                        let cached = try await fetch(true)
                        if source == .local || !cached.data.isEmpty { continuation.yield(cached) }
                    }
                    if source != .local { continuation.yield(try await fetch(false)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func conversationPage(query: ConversationQuery, cursor: String?, limit: Int?) async throws
        -> PaginatedResponse<Conversation>
    {
        let bytes = try await performForBytes(
            "GET", ["conversations"], query: pageQuery(cursor: cursor, limit: limit) + query.queryItems,
            extensionRoute: false)
        let page = try WireDecoding.page(bytes, item: WireDecoding.conversation)
        // A server without the extensions ignores the filters and lists everything; it is known by
        // conversations that lack the extension fields, which such a server always sends.
        if query.usesExtensions, page.items.contains(where: { $0.tags == nil && $0.unreadCount == nil }) {
            throw APIError.notSupportedByServer("conversation filters and order (status, tag, unread, q, order)")
        }
        record(
            conversations: page.items, list: Self.listKey(conversations: query), after: cursor, next: page.cursor,
            hasMore: page.hasMore, total: page.total ?? page.items.count, ascending: query.order == .ascending)
        return PaginatedResponse(
            data: page.items, hasMore: page.hasMore, total: page.total, cursor: page.cursor, limit: limit
        ) { [self] cursor, limit in
            try await conversationPage(query: query, cursor: cursor, limit: limit)
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
        switch source {
        case .network:
            return try await messagePage(conversationId: conversationId, cursor: cursor, limit: limit)
        case .local:
            return try localMessagePage(conversationId: conversationId, offset: Self.localOffset(cursor), limit: limit)
        case .localThenNetwork:
            do {
                return try await messagePage(conversationId: conversationId, cursor: cursor, limit: limit)
            } catch  where store != nil && Self.isPassingFailure(error) {
                return try localMessagePage(
                    conversationId: conversationId, offset: Self.localOffset(cursor), limit: limit)
            }
        }
    }

    private func messagePage(conversationId: String, cursor: String?, limit: Int?) async throws
        -> PaginatedResponse<Message>
    {
        let bytes = try await performForBytes(
            "GET", ["conversations", conversationId, "messages"], query: pageQuery(cursor: cursor, limit: limit),
            extensionRoute: false)
        let page = try WireDecoding.page(bytes, item: WireDecoding.message)
        record(
            messages: page.items, conversationId: conversationId, after: cursor, next: page.cursor,
            hasMore: page.hasMore, total: page.total ?? page.items.count)
        return PaginatedResponse(
            data: page.items, hasMore: page.hasMore, total: page.total, cursor: page.cursor, limit: limit
        ) { [self] cursor, limit in
            try await messagePage(conversationId: conversationId, cursor: cursor, limit: limit)
        }
    }

    private func pageQuery(cursor: String?, limit: Int?) -> [(String, String)] {
        var items: [(String, String)] = []
        if let cursor { items.append(("cursor", cursor)) }
        if let limit { items.append(("limit", String(limit))) }
        return items
    }

    // MARK: Conversation-management extensions

    /// One conversation. Throws ``APIError/isNotSupportedByServer`` when the server lacks the
    /// extension, an ``APIError/isNotFound`` error when there is no such conversation.
    ///
    /// ```swift
    /// let conversation = try await client.conversation(id: id)
    /// ```
    public func conversation(id: String) async throws -> Conversation {
        recorded(
            try WireDecoding.conversationEnvelope(
                await performForBytes("GET", ["conversations", id], extensionRoute: true)))
    }

    /// `conversation`, after filing it in the ``store``.
    private func recorded(_ conversation: Conversation) -> Conversation {
        record(conversation)
        return conversation
    }

    /// Creates a conversation with a client-made ID (a random lowercase UUID v4 unless `id` names
    /// one), before its first message (PROTOCOLS.md section 6). Idempotent: the same `id` again
    /// answers the same conversation, so it is retried like a GET. Throws
    /// ``APIError/isNotSupportedByServer`` when the server lacks the route (404, or 405 for a
    /// path it serves for listing only; then send with `conversationId: nil`), an ``APIError`` with status 409 when another caller owns `id`.
    ///
    /// ```swift
    /// let conversation = try await client.createConversation(title: "Trip to Rome")
    /// try await client.send("Plan three days", conversationId: conversation.id)
    /// ```
    @discardableResult
    public func createConversation(id: String? = nil, title: String? = nil) async throws -> Conversation {
        var body = JSONObject()
        body["id"] = .string(id ?? ChatStreamPaths.newDeviceId())
        if let title { body["title"] = .string(title) }
        let bytes: [UInt8]
        do {
            bytes = try await performForBytes(
                "POST", ["conversations"], body: .object(body), extensionRoute: true, idempotent: true)
        } catch let error as APIError where error.statusCode == 405 {
            // The path exists for listing only: a server without client-created conversations.
            throw APIError.notSupportedByServer("POST conversations (client-created conversations)", status: 405)
        }
        return recorded(try WireDecoding.conversationEnvelope(bytes))
    }

    /// Ends a conversation (idempotent); later chats in it answer `403 CHAT_CONVERSATION_NOT_ONGOING`.
    @discardableResult
    public func closeConversation(id: String) async throws -> Conversation {
        recorded(
            try WireDecoding.conversationEnvelope(
                await performForBytes("POST", ["conversations", id, "close"], extensionRoute: true, idempotent: true)))
    }

    /// Replaces the caller's tags on a conversation (at most 25, each 1...64 characters).
    @discardableResult
    public func setTags(_ tags: [String], conversationId: String) async throws -> Conversation {
        guard tags.count <= 25 else {
            throw APIError.invalidArgument("tags", "hold at most 25 tags, got \(tags.count)")
        }
        if let bad = tags.first(where: { $0.isEmpty || $0.count > 64 }) {
            throw APIError.invalidArgument("tags", "must each be 1...64 characters: \"\(bad)\"")
        }
        return recorded(
            try WireDecoding.conversationEnvelope(
                await performForBytes(
                    "PUT", ["conversations", conversationId, "tags"],
                    body: ["tags": .array(tags.map(JSONTree.string))], extensionRoute: true)))
    }

    /// Marks the conversation read up to `messageId`; the answer carries the new `unreadCount`.
    @discardableResult
    public func markRead(conversationId: String, messageId: String) async throws -> Conversation {
        recorded(
            try WireDecoding.conversationEnvelope(
                await performForBytes(
                    "POST", ["conversations", conversationId, "read"], body: ["messageId": .string(messageId)],
                    extensionRoute: true, idempotent: true)))
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
