/// One page of a history list, able to fetch the next one.
///
/// Pages do not accumulate: each holds only its own items. ``loadMore()`` returns nil once
/// ``hasMore`` is false; the cursor it follows is kept inside.
///
/// ```swift
/// var page = try await client.listConversations(limit: 20)
/// print("Total: \(page.total)")
/// while let next = try await page.loadMore() {
///     page = next
/// }
/// ```
public struct PaginatedResponse<T: Sendable>: Sendable {
    /// This page's items.
    public let data: [T]
    /// Whether the server has more after this page.
    public let hasMore: Bool
    /// How many items there are in all (a server that does not say: this page's count).
    public let total: Int
    /// The cursor for the next page (nil at the end).
    let cursor: String?
    /// The limit every page of this listing uses (nil: the server's default).
    let limit: Int?
    let fetchNext: (@Sendable () async throws -> PaginatedResponse<T>)?

    /// A page whose next page `fetchNext` fetches (called by ``loadMore()`` only while
    /// `hasMore` is true).
    public init(
        data: [T], hasMore: Bool, total: Int, fetchNext: @escaping @Sendable () async throws -> PaginatedResponse<T>
    ) {
        self.data = data
        self.hasMore = hasMore
        self.total = total
        self.cursor = nil
        self.limit = nil
        self.fetchNext = fetchNext
    }

    init(
        data: [T], hasMore: Bool, total: Int?, cursor: String?, limit: Int?,
        next: @escaping @Sendable (String, Int?) async throws -> PaginatedResponse<T>
    ) {
        self.data = data
        self.hasMore = hasMore
        self.total = total ?? data.count
        self.cursor = cursor
        self.limit = limit
        if let cursor {
            self.fetchNext = { try await next(cursor, limit) }
        } else {
            self.fetchNext = nil
        }
    }

    /// The next page, or nil when there is none.
    public func loadMore() async throws -> PaginatedResponse<T>? {
        guard hasMore, let fetchNext else { return nil }
        return try await fetchNext()
    }
}
