/// Where a list or message call reads from, when the client has a ``HistoryStore``. ChatStream's own.
///
/// ```swift
/// let cached = try await client.listConversations(limit: 20, source: .local)      // no request
/// for try await page in client.conversationPages(ConversationQuery(limit: 20)) { show(page.data) }  // cached, then fresh
/// ```
public enum HistorySource: Sendable, Hashable {
    /// The server only (the answer still updates the store).
    case network
    /// The store only: no request is made; a client without a store answers empty pages.
    case local
    /// The cached page at once, then the server's. A call that returns one page returns the
    /// server's, or the cached one when the server cannot be reached (no connection, timeout,
    /// 429, 5xx); ``ChatbaseClient/conversationPages(_:source:)`` and
    /// ``ChatbaseClient/messagePages(conversationId:limit:source:)`` hand over both.
    case localThenNetwork
}
