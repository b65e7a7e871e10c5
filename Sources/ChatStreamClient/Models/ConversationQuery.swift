import Foundation

/// Which conversations to list, and how (conversation-management extension, PROTOCOLS.md section 5).
/// Filters combine with AND.
///
/// ```swift
/// let query = ConversationQuery().limit(50).status(.ongoing).tag("vip").unreadOnly().search("invoice").order(.ascending)
/// let page = try await client.listConversations(query)
/// ```
public struct ConversationQuery: Sendable, Hashable {
    /// The sort direction by `updatedAt`.
    public enum Order: String, Sendable, Hashable {
        case descending = "desc"
        case ascending = "asc"
    }

    /// Page size, 1...100 (nil: the server's default, 20).
    public var limit: Int?
    /// Only these statuses (any of them); empty: all.
    public var statuses: [ConversationStatus]
    /// Only conversations carrying every one of these tags.
    public var tags: [String]
    /// Only conversations with unread agent messages.
    public var unreadOnly: Bool
    /// Case-insensitive search of titles and message text.
    public var search: String?
    /// Sort direction (nil: the server's default, newest first).
    public var order: Order?

    public init(
        limit: Int? = nil, statuses: [ConversationStatus] = [], tags: [String] = [], unreadOnly: Bool = false,
        search: String? = nil, order: Order? = nil
    ) {
        self.limit = limit
        self.statuses = statuses
        self.tags = tags
        self.unreadOnly = unreadOnly
        self.search = search
        self.order = order
    }

    /// With page size `limit`.
    public func limit(_ limit: Int) -> Self { with { $0.limit = limit } }
    /// Also matching `status`.
    public func status(_ status: ConversationStatus) -> Self { with { $0.statuses.append(status) } }
    /// Also requiring `tag`.
    public func tag(_ tag: String) -> Self { with { $0.tags.append(tag) } }
    /// Only unread conversations.
    public func unreadOnly(_ on: Bool = true) -> Self { with { $0.unreadOnly = on } }
    /// Searching for `text`.
    public func search(_ text: String) -> Self { with { $0.search = text } }
    /// Sorted by `order`.
    public func order(_ order: Order) -> Self { with { $0.order = order } }

    private func with(_ change: (inout Self) -> Void) -> Self {
        var copy = self
        change(&copy)
        return copy
    }

    /// Whether the query needs the conversation-management extensions (any filter or an order).
    public var usesExtensions: Bool {
        !statuses.isEmpty || !tags.isEmpty || unreadOnly || !(search ?? "").isEmpty || order != nil
    }

    /// Whether `conversation` passes the filters, judged from what the client knows of it: its
    /// status, tags and unread count, and for the search its title and last message (the server
    /// also searches older messages, so a conversation that `wasListed` keeps passing the search).
    /// Unknown tags fail a tag filter; an unknown unread count passes the unread filter.
    func admits(_ conversation: Conversation, wasListed: Bool) -> Bool {
        if !statuses.isEmpty && !statuses.contains(conversation.status) { return false }
        if !tags.isEmpty && !Set(tags).isSubset(of: conversation.tags ?? []) { return false }
        if unreadOnly && (conversation.unreadCount ?? 1) == 0 { return false }
        if let search, !search.isEmpty, !wasListed {
            let haystacks = [conversation.title ?? "", conversation.lastMessage?.text ?? ""]
            if !haystacks.contains(where: { $0.range(of: search, options: .caseInsensitive) != nil }) { return false }
        }
        return true
    }

    /// The same list, newest change first (for catching up at the end of a walk).
    var newestChangeFirst: ConversationQuery {
        order == nil ? self : with { $0.order = .descending }
    }

    /// The query items, without `limit` and `cursor`.
    var queryItems: [(String, String)] {
        var items: [(String, String)] = statuses.map { ("status", $0.rawValue) }
        items += tags.map { ("tag", $0) }
        if unreadOnly { items.append(("unread", "true")) }
        if let search, !search.isEmpty { items.append(("q", search)) }
        if let order { items.append(("order", order.rawValue)) }
        return items
    }
}
