import ChatStream
import Foundation
import Observation

/// The conversation list for a UI, loaded page by page without duplicates.
///
/// ```swift
/// @State var list = ConversationListState(client: client, query: ConversationQuery().limit(30))
/// // .task { await list.load() }, and at the end of the list: await list.loadMore()
/// ```
@MainActor @Observable
public final class ConversationListState {
    /// The client doing the work.
    public let client: ChatClient
    /// What to list.
    public var query: ConversationQuery
    /// The conversations loaded so far, in server order.
    public private(set) var conversations: [Conversation] = []
    /// Whether more pages remain.
    public private(set) var hasMore = false
    /// Whether a page is loading.
    public private(set) var isLoading = false
    /// The last failure, cleared by the next action.
    public var error: ChatError?

    private var page: PaginatedResponse<Conversation>?

    public init(client: ChatClient, query: ConversationQuery = ConversationQuery()) {
        self.client = client
        self.query = query
    }

    /// Loads the first page, replacing what was loaded.
    public func load() async {
        let query = self.query
        await fetch(replacing: true) { [client] in try await client.listConversations(query) }
    }

    /// Loads the next page, appending only conversations not already loaded.
    public func loadMore() async {
        guard let page, page.hasMore else { return }
        await fetch(replacing: false) { try await page.loadMore() }
    }

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
            if replacing { conversations = [] }
            var known = Set(conversations.map(\.id))
            for conversation in next.data where known.insert(conversation.id).inserted {
                conversations.append(conversation)
            }
        } catch let failure as ChatError {
            error = failure
        } catch {
            self.error = ChatError(.network, "\(error)")
        }
    }
}
