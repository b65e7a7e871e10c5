// ConversationState+Sending: a turn of the conversation. A send shows the user's message at once
// and a placeholder bubble for the reply; resend and retry reuse what the first attempt made (the
// `clientMessageId`, the rows before the retried reply); stop ends the reply, keeping its text.
// When the turn ends, the finished response stamps the server's IDs on its rows, or the failure
// marks them (the user's message pending when the outbox holds it, failed otherwise).

import ChatStream
import Foundation

extension ConversationState {
    /// Shows `text` as the user's message, streams the reply into a new bubble (tool cards for
    /// its tool calls), and stamps the server's IDs when it finishes. Never throws: a failure is
    /// ``error``, the reply's bubble is marked ``UiMessage/isError``, and so is the user's message
    /// when the server never took it. Empty or blank text, and a call while ``isSending``, do
    /// nothing. With the client's store, a message the server could not be reached for waits in
    /// the outbox: its row is ``UiMessage/isPending`` instead (and ``error`` says why).
    public func sendMessage(_ text: String) async {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !isSending else { return }
        let userRow = UiMessage(id: Self.localId(), kind: .text(trimmed), sender: .user, delivery: .sending)
        turnStart = messages.count
        messages.append(userRow)
        await send(row: userRow.id, text: trimmed, clientMessageId: ChatbaseClient.newClientMessageId())
    }

    /// Sends a user row that failed again, with the same `clientMessageId` (the server stores it
    /// once however often it arrives): it goes back to ``UiMessage/Delivery/sending``, and the
    /// empty failed reply row after it goes. Does nothing while ``isSending`` or for a row that
    /// is not a failed message of the user. ChatStream's own.
    public func resend(rowId: String) async {
        guard !isSending, let index = messages.firstIndex(where: { $0.id == rowId }),
            messages[index].delivery == .failed, case .text(let text) = messages[index].kind
        else { return }
        let clientMessageId =
            sentRows[rowId]
            ?? (rowId.hasPrefix("outbox-") ? String(rowId.dropFirst(7)) : ChatbaseClient.newClientMessageId())
        messages[index].delivery = .sending
        if index + 1 < messages.count, messages[index + 1].sender == .agent, messages[index + 1].isError,
            case .text(let reply) = messages[index + 1].kind, reply.isEmpty
        {
            messages.remove(at: index + 1)
        }
        turnStart = index
        await send(row: rowId, text: text, clientMessageId: clientMessageId)
    }

    func send(row: String, text: String, clientMessageId: String) async {
        userRowId = row
        sentRows[row] = clientMessageId
        let policy = effectiveOutbox
        if policy != .off, conversationId == nil {
            // Queued messages go into the conversation they were written in: a new one gets its ID now.
            conversationId = ChatbaseClient.newClientMessageId()
            madeConversationId = true
        }
        pendingClientMessageId = clientMessageId
        defer { pendingClientMessageId = nil }
        await run { [client, conversationId, callbacks = streamCallbacks()] in
            try await client.send(
                text, conversationId: conversationId, clientMessageId: clientMessageId, outbox: policy,
                configure: callbacks)
        }
    }

    /// Asks the agent to answer again from the message whose server ID is `messageId` (an agent
    /// message): that row and every row after it go, and the new reply streams in. Does nothing
    /// while ``isSending``, without a conversation, or when no row has that ID. When the retry
    /// fails before the server named the new reply (its answer was lost), the newest page of
    /// history is loaded, so the rows show whichever reply the server kept.
    public func retry(messageId: String) async {
        guard !isSending, let conversationId, let index = messages.firstIndex(where: { $0.messageId == messageId })
        else { return }
        messages.removeSubrange(index...)
        userRowId = nil
        turnStart = messages.count
        await run { [client, callbacks = streamCallbacks()] in
            try await client.retry(conversationId: conversationId, messageId: messageId, configure: callbacks)
        }
    }

    func run(_ body: @escaping @Sendable () async throws -> ChatResponse) async {
        error = nil
        isSending = true
        stopped = false
        streamingReply = nil
        defer {
            isSending = false
            streamingRowId = nil
            userRowId = nil
            sendTask = nil
            streamingReply = nil
            // Those heard while the rows were read again below.
            showDeferredLiveMessages()
        }
        startStreamingRow()
        let task = Task { try await body() }
        sendTask = task
        do {
            let response = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            applyStreamedUpdates()
            finish(response)
            onReply?(response)
        } catch {
            applyStreamedUpdates()
            if stopped, error is CancellationError {
                endStoppedReply()
            } else {
                fail(error)
            }
        }
        // Still sending (no new send can start): the rows the server may order otherwise settle.
        let failure = error
        showDeferredLiveMessages()
        if owesReload, let conversationId {
            await loadHistory(conversationId: conversationId)
        } else if owesMerge {
            await mergeNewestPage(endingSend: true)
        }
        // The send's own failure is the one the app shows.
        if let failure { error = failure }
    }

    /// Stops the reply being streamed (the AI SDK's `stop()`): the server stops generating and
    /// keeps the text so far (``ChatbaseClient/stopReply(conversationId:messageId:)``), and the
    /// reply's row keeps it too, not marked failed. Against a server without the route (or before
    /// the stream named the reply) the send is cancelled instead, with the same rows. Does nothing
    /// when no send or retry is in progress. ChatStream's own.
    public func stop() async {
        guard isSending, let task = sendTask else { return }
        if let reply = streamingReply,
            (try? await client.stopReply(conversationId: reply.conversationId, messageId: reply.messageId)) != nil
        {
            return  // the stream ends by itself with the partial reply
        }
        guard sendTask == task else { return }
        stopped = true
        task.cancel()
    }

    /// The rows after a send cancelled by ``stop()``: the user's message stays as it stands, the
    /// reply's row keeps its text (dropped when empty) and stops streaming.
    func endStoppedReply() {
        if let reply = streamingReply, let index = streamingIndex, messages[index].messageId == nil {
            messages[index].messageId = reply.messageId
        }
        endStreamingRow()
        if let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }),
            messages[index].delivery == .sending
        {
            messages[index].delivery = streamingReply == nil ? .failed : .sent
        }
    }

    func finish(_ response: ChatResponse) {
        if let index = streamingIndex {
            messages[index].messageId = response.message.id
        }
        endStreamingRow()
        if let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }) {
            messages[index].delivery = .sent
            if let userMessageId = response.userMessageId { messages[index].messageId = userMessageId }
        }
        for index in messages.indices.dropFirst(turnStart)
        where messages[index].sender == .agent && messages[index].messageId == nil {
            messages[index].messageId = response.message.id
        }
        if conversationId == nil || madeConversationId {
            conversationId = response.conversationId
            madeConversationId = false
        }
    }

    /// The reply's bubble is marked failed (kept with what arrived, even when empty); the user's
    /// message too when the server never took it (no reply began), so no unsent message reads
    /// as sent.
    func fail(_ failure: any Error) {
        error = failure
        let partial = (failure as? APIError)?.replyStreamError?.partialMessage
        let replyBegan = partial != nil
        if let index = streamingIndex {
            messages[index].isStreaming = false
            messages[index].isError = true
            // The reply's ID, when the stream announced it, so `retry(messageId:)` can regenerate it.
            if messages[index].messageId == nil { messages[index].messageId = partial?.id }
            // A retry whose answer was lost before it named the new reply: the server may have
            // replaced the reply or not, so the conversation is read again once the retry ended.
            if userRowId == nil, messages[index].messageId == nil { owesReload = true }
        }
        if replyBegan, let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }) {
            messages[index].delivery = .sent
            if messages[index].messageId == nil { messages[index].messageId = partial?.userMessageId }
        }
        if !replyBegan, let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }) {
            if let clientMessageId = pendingClientMessageId,
                (try? client.outbox())?.contains(where: {
                    $0.clientMessageId == clientMessageId && $0.state == .pending
                })
                    == true
            {
                // Queued: the user's row waits; no reply row until it is sent.
                messages[index].delivery = .pending
                if let streaming = streamingIndex ?? messages.indices.last(where: { messages[$0].sender == .agent }),
                    streaming > index, case .text(let text) = messages[streaming].kind, text.isEmpty
                {
                    messages.remove(at: streaming)
                }
            } else {
                messages[index].delivery = .failed
            }
        }
        if replyBegan, conversationId == nil, let id = client.currentConversationId { conversationId = id }
    }
}
