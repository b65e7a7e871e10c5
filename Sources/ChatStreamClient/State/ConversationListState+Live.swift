// ConversationListState+Live: the conversation list following the client's live event stream.
//
// `conversation.created` and `conversation.updated` carry the conversation as the server lists it
// and go through ``ConversationListState/apply(_:)-(Conversation)``, which lists each conversation
// once, moves it when it changed and drops it when it leaves the query's filters, so a live event
// and a fetched page carrying the same conversation never make two rows. A `message.created`
// always moves its conversation up (the server touched it) with the message as its last one (the `conversation.updated` that
// follows it brings the server's word). Typing shows through
// ``ConversationListState/typingConversationIds``; a `reset` (events may have been missed)
// reloads the first page.

import ChatStream

extension ConversationListState: LiveFollowing {
    /// Follows the client's live events (``ChatbaseClient/events(since:options:)``) until
    /// ``stopLive()``. Calling it again while following does nothing. ``liveState`` says where
    /// the subscription stands; once it is first ``LiveConnectionState/live`` the conversations
    /// changed since the list was loaded are fetched, so `load()` then `startLive()` leaves no gap.
    ///
    /// ```swift
    /// .task { await list.load(); list.startLive() }
    /// .onDisappear { list.stopLive() }
    /// ```
    public func startLive(options: LiveEventOptions = LiveEventOptions()) { followLive(options: options) }

    /// Stops following the live stream.
    public func stopLive() {
        unfollowLive()
        typingConversationIds = []
    }

    /// Brings in the conversations changed between the list's last read and the subscription's
    /// start (waiting for a load under way to finish first).
    func catchUpAfterSubscribing() async {
        while isLoading {
            try? await Task.sleep(for: .milliseconds(20))
            if Task.isCancelled { return }
        }
        do {
            try await catchUp()
        } catch {
            self.error = error
        }
    }

    /// Applies one live event (also used by tests and by apps that run their own event loop).
    public func handleLive(_ event: LiveEvent) async {
        switch event.kind {
        case .conversationCreated(let conversation), .conversationUpdated(let conversation):
            apply(conversation)
        case .messageCreated(let id, let message):
            let previous = conversations.first { $0.id == id }
            guard previous?.lastMessage?.id != message.id else { return }
            // A new message always touches its conversation on the server (its list position), even
            // within the second its `updatedAt` already names.
            place(Conversation(conversationId: id, message: message, previous: previous), moved: true)
            if message.sender == .agent { typingConversationIds.remove(id) }
        case .typing(let id, _, let active):
            if active { typingConversationIds.insert(id) } else { typingConversationIds.remove(id) }
        case .reset:
            typingConversationIds = []
            await load()
        case .notSupportedByServer:
            isLive = false
            liveState = .unsupported
        case .other:
            break
        }
    }
}
