// ConversationState's history: the newest page shown on load (the cached page first, then the
// server's), older pages in front, and the outbox's messages of the conversation as their rows.

import ChatStream

extension ConversationState {

    /// Loads the newest page of conversation `conversationId`, replacing the rows, and continues
    /// that conversation from now on. With the client's ``ChatbaseClient/store`` the cached page
    /// shows at once and the server's replaces it (``HistorySource/localThenNetwork``); when the
    /// server cannot be reached the cached rows stay, with ``error`` set. A reply of the
    /// conversation left in flight (the app was killed mid-reply) is finished first (``resume()``).
    public func loadHistory(conversationId: String, limit: Int = 20) async {
        guard !isLoadingHistory else { return }
        isLoadingHistory = true
        defer { isLoadingHistory = false }
        // Local then network: the cached page at once, replaced by the server's.
        if client.store != nil,
            let cached = try? await client.listMessages(conversationId: conversationId, limit: limit, source: .local),
            !cached.data.isEmpty
        {
            messages = cached.data.flatMap(Self.rows(for:)) + outboxRows(conversationId, besides: cached.data)
            self.conversationId = conversationId
            historyPage = cached
            hasMoreHistory = cached.hasMore
        }
        await completeRepliesInFlight(of: conversationId)
        do {
            let page = try await client.listMessages(conversationId: conversationId, limit: limit)
            messages =
                page.data.flatMap(Self.rows(for:)) + outboxRows(conversationId, besides: page.data, fromServer: true)
            self.conversationId = conversationId
            historyPage = page
            hasMoreHistory = page.hasMore
            owesReload = false
        } catch {
            self.error = error
            // The rows are the cache's (or the last ones shown): read again when the network is back.
            owesReload = true
        }
        await loadStatus(of: conversationId)
    }

    /// Loads the next older page in front of the rows; does nothing when there is none.
    public func loadMoreHistory() async {
        guard let page = historyPage, page.hasMore, !isLoadingHistory else { return }
        isLoadingHistory = true
        defer { isLoadingHistory = false }
        do {
            guard let next = try await page.loadMore() else {
                hasMoreHistory = false
                return
            }
            let shown = Set(messages.compactMap(\.messageId))
            messages.insert(contentsOf: next.data.filter { !shown.contains($0.id) }.flatMap(Self.rows(for:)), at: 0)
            historyPage = next
            hasMoreHistory = next.hasMore
        } catch {
            self.error = error
        }
    }

    /// Sends the client's outbox (``ChatbaseClient/flushOutbox()``); when a message of this
    /// conversation, or one this state showed as pending, was delivered, reloads the conversation's
    /// newest page so its rows show the reply. ChatStream's own.
    public func flushOutbox() async {
        error = nil
        do {
            let flush = try await client.flushOutbox()
            let shown = Set(sentRows.values)
            guard
                let delivered = flush.delivered.last(where: {
                    $0.response.conversationId == conversationId || shown.contains($0.message.clientMessageId)
                })
            else { return }
            await loadHistory(conversationId: delivered.response.conversationId)
        } catch {
            self.error = error
        }
    }

    /// The outbox's messages to `conversationId` as user rows, pending or failed, except those
    /// `page` holds (by `clientMessageId`: stored, whatever their send reported), which the
    /// outbox forgets when the page is the server's.
    private func outboxRows(_ conversationId: String, besides page: [Message], fromServer: Bool = false)
        -> [UiMessage]
    {
        let stored = Set(page.compactMap(\.clientMessageId))
        var rows: [UiMessage] = []
        for queued in (try? client.outbox()) ?? [] where queued.conversationId == conversationId {
            guard !stored.contains(queued.clientMessageId) else {
                if fromServer { try? client.discardOutboxMessage(clientMessageId: queued.clientMessageId) }
                continue
            }
            rows.append(
                UiMessage(
                    id: "outbox-" + queued.clientMessageId, kind: .text(queued.text), sender: .user,
                    date: queued.createdAt, isError: queued.state == .failed, isPending: queued.state == .pending))
        }
        return rows
    }

    /// A history message as rows: a bubble per text part, a card per tool call (completed by its
    /// result); a message with text but no such parts is one bubble. A reply a server restart
    /// interrupted shows failed (``UiMessage/isError``; one bubble even when empty), so it can be
    /// retried.
    static func rows(for message: Message) -> [UiMessage] {
        var rows: [UiMessage] = []
        for part in message.parts {
            switch part {
            case .text(let text) where !text.isEmpty:
                rows.append(
                    UiMessage(
                        id: "\(message.id)#\(rows.count)", messageId: message.id, kind: .text(text),
                        sender: message.sender, date: message.date, isError: message.isInterrupted,
                        feedback: message.feedback))
            case .text: break
            case .toolCall(let id, let name, let input):
                rows.append(
                    UiMessage(
                        id: id, messageId: message.id,
                        kind: .toolCall(ToolCallCard(toolCallId: id, toolName: name, input: input)),
                        sender: .agent, date: message.date))
            case .toolResult(let id, _, let output):
                if let index = rows.lastIndex(where: { $0.id == id }), case .toolCall(var card) = rows[index].kind {
                    card.output = output
                    card.status = ToolCallCard.status(for: output)
                    rows[index].kind = .toolCall(card)
                }
            }
        }
        if rows.isEmpty, !message.text.isEmpty || message.isInterrupted {
            rows.append(
                UiMessage(
                    id: message.id, messageId: message.id, kind: .text(message.text), sender: message.sender,
                    date: message.date, isError: message.isInterrupted, feedback: message.feedback))
        }
        return rows
    }
}
