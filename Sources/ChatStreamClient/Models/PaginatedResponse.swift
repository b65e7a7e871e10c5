/// One page of a history list, able to fetch the next one.
///
/// Pages do not accumulate: each holds only its own items. ``loadMore()`` sends the page's cursor
/// with the first call's `limit` and returns nil once there is nothing more.
///
/// ```swift
/// var page: PaginatedResponse<Conversation>? = try await client.listConversations(limit: 20)
/// while let current = page {
///     for conversation in current.data { print(conversation.id) }
///     page = try await current.loadMore()
/// }
/// ```
public struct PaginatedResponse<Item: Sendable>: Sendable {
    /// This page's items.
    public let data: [Item]
    /// Whether the server has more after this page.
    public let hasMore: Bool
    /// The total count, when the server says.
    public let total: Int?
    /// The cursor for the next page (nil at the end).
    public let cursor: String?
    /// The limit every page of this listing uses (nil: the server's default).
    public let limit: Int?
    let next: @Sendable (_ cursor: String, _ limit: Int?) async throws -> PaginatedResponse<Item>

    init(
        data: [Item], hasMore: Bool, total: Int?, cursor: String?, limit: Int?,
        next: @escaping @Sendable (String, Int?) async throws -> PaginatedResponse<Item>
    ) {
        self.data = data
        self.hasMore = hasMore
        self.total = total
        self.cursor = cursor
        self.limit = limit
        self.next = next
    }

    /// The next page, or nil when there is none. Throws ``ChatError``.
    public func loadMore() async throws -> PaginatedResponse<Item>? {
        guard hasMore, let cursor else { return nil }
        return try await next(cursor, limit)
    }
}
