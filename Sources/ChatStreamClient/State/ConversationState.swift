// Observable state for SwiftUI and other UIs: the main actor owns it, the client does the work.

import ChatStream
import Foundation
import Observation

/// One conversation for a UI: its messages, the reply streaming in, and what went wrong.
///
/// ```swift
/// @State var state = ConversationState(client: client)
/// // ...
/// Task { await state.send("Hello") }
/// ForEach(state.messages) { Text($0.text) }
/// if let reply = state.streamingMessage { Text(reply.text) }
/// ```
///
/// A ``ConversationListState`` shown beside it stays current through ``onReply``.
@MainActor @Observable
public final class ConversationState {
    /// The client doing the work.
    public let client: ChatClient
    /// The conversation (nil until the first reply assigns one).
    public private(set) var conversationId: String?
    /// The messages, oldest first.
    public private(set) var messages: [Message] = []
    /// The reply as it streams in; nil when none is streaming.
    public private(set) var streamingMessage: AssembledMessage?
    /// Whether a send is in progress.
    public private(set) var isSending = false
    /// Whether a history page is loading.
    public private(set) var isLoadingHistory = false
    /// Whether older history remains to load.
    public private(set) var hasMoreHistory = false
    /// The last failure, cleared by the next action.
    public var error: ChatError?
    /// Called on the main actor after each ``send(_:)`` that completes, with the finished reply
    /// (after any tool loop). Use it to keep a ``ConversationListState`` current without a refetch:
    ///
    /// ```swift
    /// chat.onReply = { [weak list] response in list?.apply(response) }
    /// ```
    public var onReply: (@MainActor (ChatResponse) -> Void)?

    private var historyPage: PaginatedResponse<Message>?

    /// State for `conversationId` (nil: a new conversation begins with the first send).
    public init(client: ChatClient, conversationId: String? = nil) {
        self.client = client
        self.conversationId = conversationId
    }

    /// Sends `text`, showing it at once and the reply as it streams.
    public func send(_ text: String) async {
        guard !isSending else { return }
        isSending = true
        error = nil
        defer {
            isSending = false
            streamingMessage = nil
        }
        let pendingUserId = "local-" + ChatStreamPaths.newDeviceId()
        messages.append(Message(id: pendingUserId, sender: .user, date: Date(), assembledParts: [.text(text)]))
        do {
            var last: AssembledMessage? = nil
            var userMessageId: String? = nil
            for try await update in client.send(text, conversationId: conversationId) {
                if case .conversationAssigned(let id) = update.event { conversationId = id }
                if userMessageId == nil { userMessageId = update.message.userMessageId }
                streamingMessage = update.message
                last = update.message
            }
            if let last {
                if let id = userMessageId, let index = messages.firstIndex(where: { $0.id == pendingUserId }) {
                    messages[index].id = id
                }
                append(last)
                if let conversationId = last.conversationId ?? conversationId {
                    onReply?(
                        ChatResponse(assembled: last, conversationId: conversationId, userMessageId: userMessageId))
                }
            }
        } catch let failure as ChatError {
            error = failure
            if let partial = failure.partialMessage { append(partial) }
        } catch {
            self.error = ChatError(.network, "\(error)")
        }
    }

    private func append(_ reply: AssembledMessage) {
        guard !reply.parts.isEmpty else { return }
        let id = reply.id ?? "local-" + ChatStreamPaths.newDeviceId()
        guard !messages.contains(where: { $0.id == id }) else { return }
        messages.append(Message(id: id, sender: .agent, date: Date(), assembledParts: reply.parts))
    }

    /// Loads the newest page of history (replacing nothing: messages already shown are kept).
    public func loadHistory(limit: Int? = nil) async {
        guard let conversationId, !isLoadingHistory else { return }
        await loadPage { [client] in try await client.listMessages(conversationId: conversationId, limit: limit) }
    }

    /// Loads the next older page; does nothing when there is none.
    public func loadMoreHistory() async {
        guard let page = historyPage, page.hasMore, !isLoadingHistory else { return }
        await loadPage { try await page.loadMore() }
    }

    private func loadPage(_ fetch: @Sendable () async throws -> PaginatedResponse<Message>?) async {
        isLoadingHistory = true
        error = nil
        defer { isLoadingHistory = false }
        do {
            guard let page = try await fetch() else {
                hasMoreHistory = false
                return
            }
            historyPage = page
            hasMoreHistory = page.hasMore
            let known = Set(messages.map(\.id))
            let older = page.data.filter { !known.contains($0.id) }
            messages = (older + messages).sorted { $0.date < $1.date }
        } catch let failure as ChatError {
            error = failure
        } catch {
            self.error = ChatError(.network, "\(error)")
        }
    }
}
