// The conversation list for a UI: pages loaded on demand, and live updates without a refetch.
//
// Live updates come in two forms. A reply (`apply(_: ChatResponse)`) becomes a conversation
// with `Conversation(reply:previous:)` and moves to the front (newest first; to the end with
// `order(.ascending)`). A conversation the server answered with (close, tags, read) replaces the
// listed one, moving only when its `updatedAt` advanced or its status changed (the server
// counts both as a change). Either way it is listed once, and it
// leaves the list when it no longer passes the query's filters. `ConversationState.onReply`
// feeds the list after every completed send.
//
// Walking the pages: a conversation a later page brings again with a newer `updatedAt` (an
// oldest-first list updated elsewhere moves it there) replaces the stale copy at its new place.
// When a walk of more than one page reaches its end, the list catches up from the top (newest
// change first) as AsyncPaginatedSequence does: a conversation updated mid-walk jumps behind a
// newest-first walk's cursor and no page would bring it.

import ChatStream
import Foundation
import Observation

/// The conversation list for a UI, loaded page by page without duplicates and updated live.
///
/// ```swift
/// @State var list = ConversationListState(client: client, query: ConversationQuery().limit(30))
/// // .task { await list.load() }, and at the end of the list: await list.loadMore()
///
/// // Keep it current while a conversation screen sends:
/// let chat = ConversationState(client: client, conversationId: id)
/// chat.onReply = { [weak list] response in list?.apply(response) }
/// ```
@MainActor @Observable
public final class ConversationListState {
    /// The client doing the work.
    public let client: ChatbaseClient
    /// What to list: set it, then ``load()`` to list again with it.
    public var query: ConversationQuery
    /// The conversations loaded so far, in the query's order, each once.
    public private(set) var conversations: [Conversation] = []
    /// Whether more pages remain.
    public private(set) var hasMore = false
    /// Whether a page is loading.
    public private(set) var isLoading = false
    /// The last failure, cleared by the next action or ``clearError()``.
    public internal(set) var error: (any Error)?

    /// The conversations someone (the agent, a human agent) is typing in now, while following the
    /// live stream (``startLive(options:)``).
    public internal(set) var typingConversationIds: Set<String> = []
    /// Whether the list follows the live stream.
    public internal(set) var isLive = false
    /// Where the list's live subscription stands (``LiveConnectionState/stopped`` when not following).
    public internal(set) var liveState: LiveConnectionState = .stopped
    @ObservationIgnored var liveTask: Task<Void, Never>?

    private var page: PaginatedResponse<Conversation>?
    /// Pages loaded since the last ``load()``.
    private var pagesWalked = 0

    /// A list of `client`'s conversations matching `query` (nothing is loaded until ``load()``).
    public init(client: ChatbaseClient, query: ConversationQuery = ConversationQuery()) {
        self.client = client
        self.query = query
    }

    /// Loads the first page of `limit` conversations (the documented default 20), replacing
    /// what was loaded; ``query`` keeps the limit for the pages after it.
    public func load(limit: Int) async {
        query.limit = limit
        await load()
    }

    /// Forgets ``error``.
    public func clearError() { error = nil }

    /// Loads the first page with ``query``, replacing what was loaded. With the client's
    /// ``ChatbaseClient/store`` the cached page shows at once and the server's replaces it
    /// (``HistorySource/localThenNetwork``); when the server cannot be reached the cached rows
    /// stay, with ``error`` set.
    public func load() async {
        let query = self.query
        // Local then network: the cached page at once (when the client has a store), then the
        // server's page replaces it; a server that cannot be reached leaves the cached rows shown.
        if client.store != nil, !isLoading, let cached = try? await client.listConversations(query, source: .local),
            !cached.data.isEmpty
        {
            conversations = cached.data
            hasMore = cached.hasMore
            page = cached
            pagesWalked = 1
        }
        await fetch(replacing: true) { [client] in try await client.listConversations(query) }
    }

    /// Loads the next page, appending only conversations not already loaded (one loaded before
    /// that the page brings with a newer `updatedAt` moves to its new place, fresh). After the
    /// last page of a walk of several, conversations updated during the walk are fetched from
    /// the top, so each conversation of the list is shown, once and current.
    public func loadMore() async {
        guard let page, page.hasMore else { return }
        await fetch(replacing: false) { try await page.loadMore() }
    }

    // MARK: Live updates

    /// Shows a completed reply: its conversation moves to the top (the end with ascending order)
    /// with the reply as its last message, and is listed once. A conversation not listed yet
    /// (a new one) is added when it passes the query's filters as far as the client can tell.
    ///
    /// ```swift
    /// let response = try await client.send("Hi", conversationId: id)
    /// list.apply(response)
    /// ```
    public func apply(_ reply: ChatResponse) {
        let previous = conversations.first { $0.id == reply.conversationId }
        place(Conversation(reply: reply, previous: previous), moved: true)
    }

    /// Shows a conversation as the server now answers it (from ``ChatbaseClient/closeConversation(id:)``,
    /// ``ChatbaseClient/setTags(_:conversationId:)``, ``ChatbaseClient/markRead(conversationId:messageId:)``
    /// or ``ChatbaseClient/conversation(id:)``): the listed one is replaced, and moves (as the server
    /// reorders it) only when its `updatedAt` advanced or its status changed; one that no longer
    /// passes the query's filters leaves the list.
    public func apply(_ conversation: Conversation) {
        let previous = conversations.first { $0.id == conversation.id }
        let moved = previous.map { conversation.updatedAt > $0.updatedAt || conversation.status != $0.status } ?? true
        place(conversation, moved: moved)
    }

    /// Closes conversation `id` on the server and shows it as ended (idempotent).
    ///
    /// ```swift
    /// await list.close(conversation.id)   // list.conversations now shows it `.ended`
    /// ```
    public func close(_ id: String) async {
        error = nil
        do {
            apply(try await client.closeConversation(id: id))
        } catch {
            self.error = error
        }
    }

    func place(_ conversation: Conversation, moved: Bool) {
        let index = conversations.firstIndex { $0.id == conversation.id }
        guard query.admits(conversation, wasListed: index != nil) else {
            if let index { conversations.remove(at: index) }
            return
        }
        if let index, !moved {
            conversations[index] = conversation
            return
        }
        if let index { conversations.remove(at: index) }
        if query.order == .ascending {
            // The newest belongs at the end; while pages remain, a later page will bring it.
            if !hasMore { conversations.append(conversation) }
        } else {
            conversations.insert(conversation, at: 0)
        }
    }

    // MARK: Pages

    private func fetch(
        replacing: Bool, _ body: @Sendable () async throws -> PaginatedResponse<Conversation>?
    ) async {
        guard !isLoading else { return }
        isLoading = true
        error = nil
        defer { isLoading = false }
        do {
            guard let next = try await body() else {
                hasMore = false
                return
            }
            page = next
            hasMore = next.hasMore
            if replacing {
                conversations = []
                pagesWalked = 0
            }
            pagesWalked += 1
            for conversation in next.data { merge(conversation) }
            if !next.hasMore, pagesWalked > 1 { try await catchUp() }
        } catch {
            self.error = error
        }
    }

    /// Adds a conversation a page brought. One already listed is replaced by it at its new place:
    /// a later page is the server's newer word (an oldest-first list brings a conversation updated
    /// elsewhere again at its end), unless the listed copy is newer still (a live update).
    private func merge(_ conversation: Conversation) {
        guard let index = conversations.firstIndex(where: { $0.id == conversation.id }) else {
            conversations.append(conversation)
            return
        }
        guard conversation.updatedAt >= conversations[index].updatedAt else { return }
        conversations.remove(at: index)
        conversations.append(conversation)
    }

    /// Brings in, from the top of the list, the conversations updated or started during the walk.
    func catchUp() async throws {
        let top = query.newestChangeFirst
        for _ in 0..<3 {
            var changed: [Conversation] = []
            var current: PaginatedResponse<Conversation>? = try await client.listConversations(top)
            while let page = current {
                var reachedUnchanged = false
                for conversation in page.data {
                    // Listed as the server has it (or newer, from a live update): the rest is older.
                    if let listed = conversations.first(where: { $0.id == conversation.id }),
                        conversation == listed || conversation.updatedAt < listed.updatedAt
                    {
                        reachedUnchanged = true
                        continue
                    }
                    changed.append(conversation)
                }
                current = reachedUnchanged ? nil : try await page.loadMore()
            }
            guard !changed.isEmpty else { return }
            // Newest change first: placing the oldest first leaves the newest at the top (the end
            // when ascending).
            for conversation in changed.reversed() { place(conversation, moved: true) }
        }
    }
}
