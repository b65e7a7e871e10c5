// HistoryRepository: where the client's lists come from, one collaborator of ChatbaseClient. A
// page is read from the server (and filed in the client's HistoryStore as it arrives), from the
// store alone (`.local`: its filters applied there, cursors `local:<offset>`), or from the server
// with the store as the fallback when the server cannot be reached (`.localThenNetwork`). A page's
// loadMore continues from where the page came from.

import ChatStream
import Foundation

/// The local/network policy of a client's history, over its requests and its store.
struct HistoryRepository: Sendable {
    /// The client whose requests, store and identity scope the pages use.
    let client: ChatbaseClient

    /// A page of conversations matching `query` as `source` says (the limit already checked).
    func conversations(_ query: ConversationQuery, cursor: String?, source: HistorySource) async throws
        -> PaginatedResponse<Conversation>
    {
        switch source {
        case .network:
            return try await conversationPage(query: query, cursor: cursor, limit: query.limit)
        case .local:
            return try localConversationPage(query, offset: Self.localOffset(cursor))
        case .localThenNetwork:
            do {
                return try await conversationPage(query: query, cursor: cursor, limit: query.limit)
            } catch  where client.store != nil && RequestPerformer.isPassingFailure(error) {
                return try localConversationPage(query, offset: Self.localOffset(cursor))
            }
        }
    }

    /// A page of the messages of `conversationId` as `source` says (the limit already checked).
    func messages(conversationId: String, cursor: String?, limit: Int?, source: HistorySource) async throws
        -> PaginatedResponse<Message>
    {
        switch source {
        case .network:
            return try await messagePage(conversationId: conversationId, cursor: cursor, limit: limit)
        case .local:
            return try localMessagePage(conversationId: conversationId, offset: Self.localOffset(cursor), limit: limit)
        case .localThenNetwork:
            do {
                return try await messagePage(conversationId: conversationId, cursor: cursor, limit: limit)
            } catch  where client.store != nil && RequestPerformer.isPassingFailure(error) {
                return try localMessagePage(
                    conversationId: conversationId, offset: Self.localOffset(cursor), limit: limit)
            }
        }
    }

    /// The first page as `source` gives it, as a sequence: with ``HistorySource/localThenNetwork``
    /// the cached page at once (when the store holds any), then the server's; `fetch(true)` reads
    /// the store, `fetch(false)` the server.
    func pages<Item: Sendable>(
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

    func conversationPage(query: ConversationQuery, cursor: String?, limit: Int?) async throws
        -> PaginatedResponse<Conversation>
    {
        let bytes = try await client.performForBytes(
            "GET", ["conversations"], query: Self.pageQuery(cursor: cursor, limit: limit) + query.queryItems,
            extensionRoute: false)
        let page = try WireDecoding.page(bytes, item: WireDecoding.conversation)
        // A server without the extensions ignores the filters and lists everything; it is known by
        // conversations that lack the extension fields, which such a server always sends.
        if query.usesExtensions, page.items.contains(where: { $0.tags == nil && $0.unreadCount == nil }) {
            throw APIError.notSupportedByServer("conversation filters and order (status, tag, unread, q, order)")
        }
        client.record(
            conversations: page.items, list: ChatbaseClient.listKey(conversations: query), after: cursor,
            next: page.cursor,
            hasMore: page.hasMore, total: page.total ?? page.items.count, ascending: query.order == .ascending)
        return PaginatedResponse(
            data: page.items, hasMore: page.hasMore, total: page.total, cursor: page.cursor, limit: limit
        ) { [self] cursor, limit in
            try await conversationPage(query: query, cursor: cursor, limit: limit)
        }
    }

    func messagePage(conversationId: String, cursor: String?, limit: Int?) async throws
        -> PaginatedResponse<Message>
    {
        let bytes = try await client.performForBytes(
            "GET", ["conversations", conversationId, "messages"], query: Self.pageQuery(cursor: cursor, limit: limit),
            extensionRoute: false)
        let page = try WireDecoding.page(bytes, item: WireDecoding.message)
        client.record(
            messages: page.items, conversationId: conversationId, after: cursor, next: page.cursor,
            hasMore: page.hasMore, total: page.total ?? page.items.count)
        return PaginatedResponse(
            data: page.items, hasMore: page.hasMore, total: page.total, cursor: page.cursor, limit: limit
        ) { [self] cursor, limit in
            try await messagePage(conversationId: conversationId, cursor: cursor, limit: limit)
        }
    }

    static func pageQuery(cursor: String?, limit: Int?) -> [(String, String)] {
        var items: [(String, String)] = []
        if let cursor { items.append(("cursor", cursor)) }
        if let limit { items.append(("limit", String(limit))) }
        return items
    }

    /// The offset a local cursor (`local:<n>`) names; 0 for none or a server's cursor.
    static func localOffset(_ cursor: String?) -> Int {
        guard let cursor, cursor.hasPrefix("local:") else { return 0 }
        return Int(cursor.dropFirst(6)) ?? 0
    }

    /// A page of the cached conversations matching `query` (empty without a store).
    func localConversationPage(_ query: ConversationQuery, offset: Int) throws -> PaginatedResponse<Conversation> {
        let limit = query.limit ?? 20
        guard let store = client.store, let scope = client.storeScope else {
            return PaginatedResponse(data: [], hasMore: false, total: 0, cursor: nil, limit: limit) { _, _ in
                throw APIError.invalidArgument("cursor", "names no local page")
            }
        }
        let (items, hasMore, total) = try store.conversations(scope: scope, query: query, offset: offset, limit: limit)
        let next = offset + items.count
        return PaginatedResponse(
            data: items, hasMore: hasMore, total: total, cursor: hasMore ? "local:\(next)" : nil, limit: limit
        ) { [self] cursor, _ in
            try localConversationPage(query, offset: Self.localOffset(cursor))
        }
    }

    /// A page of the cached messages of `conversationId` (empty without a store).
    func localMessagePage(conversationId: String, offset: Int, limit: Int?) throws -> PaginatedResponse<Message> {
        let size = limit ?? 20
        guard let store = client.store, let scope = client.storeScope else {
            return PaginatedResponse(data: [], hasMore: false, total: 0, cursor: nil, limit: limit) { _, _ in
                throw APIError.invalidArgument("cursor", "names no local page")
            }
        }
        let (items, hasMore, total) = try store.messages(
            scope: scope, conversationId: conversationId, offset: offset, limit: size)
        let next = offset + size
        return PaginatedResponse(
            data: items, hasMore: hasMore, total: total, cursor: hasMore ? "local:\(next)" : nil, limit: limit
        ) { [self] cursor, limit in
            try localMessagePage(conversationId: conversationId, offset: Self.localOffset(cursor), limit: limit)
        }
    }
}
