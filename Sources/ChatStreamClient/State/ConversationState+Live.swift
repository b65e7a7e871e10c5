// ConversationState+Live: one conversation that follows the client's live event stream.
//
// A message the server records in this conversation (a human agent's, a reply finished on
// another device) appears as rows; one already shown (by its server ID) is not shown twice, and
// messages heard while a send runs wait until it ends, so the reply being streamed is not shown
// twice. `conversation.updated` carries the status, so a conversation ended or taken over says so
// through ``ConversationState/status`` and ``ConversationState/canSend``. Typing shows through
// ``ConversationState/typingParticipants``; a `reset` reloads the newest page of history. The
// status is also read when history is loaded (the local store's row at once, then the server's
// conversation), and when the subscription first becomes live the newest page is read again and
// messages newer than those shown are added, so `loadHistory` then `startLive()` leaves no gap.

import ChatStream

extension ConversationState: LiveFollowing {
    /// Whether the composer should take a message: false once ``status`` says the conversation is
    /// no longer ongoing (known after ``loadHistory(conversationId:limit:)`` and from the live
    /// stream), and while a send runs.
    public var canSend: Bool { !isSending && (status == nil || status == .ongoing) }

    /// Whether the agent or a human agent is typing in this conversation now.
    public var isSomeoneTyping: Bool { !typingParticipants.isEmpty }

    /// Follows the client's live events (``ChatbaseClient/events(since:options:)``) for this
    /// conversation until ``stopLive()``: new messages appear, status and typing update, and a
    /// `reset` reloads the history. Calling it again while following does nothing.
    ///
    /// ```swift
    /// .task { await state.loadHistory(conversationId: id); state.startLive() }
    /// .onDisappear { state.stopLive() }
    /// ```
    public func startLive(options: LiveEventOptions = LiveEventOptions()) { followLive(options: options) }

    /// Stops following the live stream.
    public func stopLive() {
        unfollowLive()
        typingParticipants = []
    }

    /// Reads the conversation's status: the local store's at once (when it has the
    /// conversation), then the server's. A server without the single-conversation route leaves
    /// it as it was.
    func loadStatus(of conversationId: String) async {
        if let cached = client.cachedConversation(id: conversationId) { status = cached.status }
        if let conversation = try? await client.conversation(id: conversationId),
            UUIDIdentifiers.same(self.conversationId, conversationId)
        {
            status = conversation.status
        }
    }

    /// Adds the messages stored between the last load and the subscription's start: those of the
    /// newest page that are not shown and not older than the newest shown (held while a send runs).
    func catchUpAfterSubscribing() async {
        guard let conversationId else { return }
        await loadStatus(of: conversationId)
        guard let page = try? await client.listMessages(conversationId: conversationId),
            UUIDIdentifiers.same(self.conversationId, conversationId)
        else { return }
        let shown = Set(messages.compactMap(\.messageId))
        let newest = messages.filter { $0.messageId != nil }.map(\.date).max() ?? .distantPast
        for message in page.data where !shown.contains(message.id) && message.date >= newest {
            if isSending {
                deferredLiveMessages.append(message)
            } else {
                show(liveMessage: message)
            }
        }
    }

    /// Applies one live event (also used by tests and by apps that run their own event loop).
    public func handleLive(_ event: LiveEvent) async {
        // No conversation yet: no event names it, and a reset has no history to reload.
        guard let conversationId else { return }
        // The stream works again: a reload owed since the network failed is done first.
        if owesReload, event.kind != .reset { await settleOwedRows() }
        switch event.kind {
        case .messageCreated(let id, let message) where UUIDIdentifiers.same(id, conversationId):
            if isSending {
                deferredLiveMessages.append(message)
            } else if event.carriesPreviewOnly {
                // Too long to travel in the event (the server sent its start): fetch it, unless shown.
                if !messages.contains(where: { $0.messageId == message.id }) {
                    await loadHistory(conversationId: conversationId)
                }
            } else {
                show(liveMessage: message)
            }
        case .conversationUpdated(let conversation) where UUIDIdentifiers.same(conversation.id, conversationId),
            .conversationCreated(let conversation) where UUIDIdentifiers.same(conversation.id, conversationId):
            status = conversation.status
        case .typing(let id, let participant, let active) where UUIDIdentifiers.same(id, conversationId):
            if active { typingParticipants.insert(participant) } else { typingParticipants.remove(participant) }
        case .reset:
            typingParticipants = []
            if isSending {
                // The reload would drop the rows of the send in progress: it waits for its end.
                owesReload = true
            } else {
                await loadHistory(conversationId: conversationId)
            }
        case .notSupportedByServer:
            isLive = false
            liveState = .unsupported
        default:
            break
        }
        await settleOwedRows()
    }

    /// The live stream is live again after a reconnection: what is owed is done now.
    func liveAgain() async { await settleOwedRows() }

    /// Reads what the rows owe the server's view (``owesReload``, else ``owesMerge``), when no
    /// send runs and no history is being loaded.
    func settleOwedRows() async {
        guard !isSending, !isLoadingHistory, let conversationId else { return }
        if owesReload {
            await loadHistory(conversationId: conversationId)
        } else if owesMerge {
            await mergeNewestPage()
        }
    }

    /// Shows the live messages held while a send ran (called when it ends).
    func showDeferredLiveMessages() {
        let held = deferredLiveMessages
        deferredLiveMessages = []
        for message in held { show(liveMessage: message) }
    }

    private func show(liveMessage message: Message) {
        guard !messages.contains(where: { $0.messageId == message.id }), !settlePendingRow(by: message) else { return }
        messages.append(contentsOf: Self.rows(for: message))
        // Heard now, but written maybe before rows shown already: the server's page says where.
        owesMerge = true
        // A message from the agent side means nobody is typing it any more.
        if message.sender == .agent { typingParticipants = [] }
    }
}
