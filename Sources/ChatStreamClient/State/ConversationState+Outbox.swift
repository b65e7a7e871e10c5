// ConversationState and the client's outbox: a row shown as pending settles when the outbox
// delivers its message in the background (sent, with the server's ID and the reply's rows after
// it) or when the server refuses it (failed, once, with the error). A row is found by the
// message's clientMessageId; one the live stream already showed is not shown twice.

import ChatStream

/// Keeps a ConversationState's outbox observer registered while the state lives.
final class OutboxSubscription: Sendable {
    private let client: ChatbaseClient
    private let token: Int

    init(client: ChatbaseClient, _ observer: @escaping @Sendable (OutboxEvent) -> Void) {
        self.client = client
        token = client.outboxQueue.observe(observer)
    }

    deinit { client.outboxQueue.removeObserver(token) }
}

extension ConversationState {
    /// The index of the row showing the message sent with `clientMessageId`.
    func rowIndex(clientMessageId: String) -> Int? {
        messages.firstIndex { row in
            row.sender == .user && (sentRows[row.id] == clientMessageId || row.id == "outbox-" + clientMessageId)
        }
    }

    /// Applies what the outbox did with a message outside this state's own sends.
    func settle(_ event: OutboxEvent) {
        switch event {
        case .delivered(let delivery):
            guard let index = rowIndex(clientMessageId: delivery.message.clientMessageId) else { return }
            let response = delivery.response
            if let userMessageId = response.userMessageId,
                messages.contains(where: { $0.messageId == userMessageId && $0.sender == .user })
            {
                // The live stream showed it already: one row, not two.
                messages.remove(at: index)
            } else {
                messages[index].delivery = .sent
                messages[index].messageId = response.userMessageId ?? messages[index].messageId
                let after = index + 1
                while after < messages.count, messages[after].sender == .agent, messages[after].messageId == nil,
                    case .text(let text) = messages[after].kind, text.isEmpty
                {
                    messages.remove(at: after)
                }
                let reply = Message(reply: response.assembledMessage)
                if !messages.contains(where: { $0.messageId == reply.id && $0.sender == .agent }) {
                    messages.insert(contentsOf: Self.rows(for: reply), at: after)
                }
            }
            if conversationId == delivery.message.conversationId { setConversationId(response.conversationId) }
        case .refused(let message, let failure):
            guard let index = rowIndex(clientMessageId: message.clientMessageId),
                messages[index].delivery != .failed
            else { return }
            messages[index].delivery = .failed
            error = failure
        }
    }

    /// Settles a pending (or failed) row when the live stream shows the message it was sent as (by
    /// its `clientMessageId`); true when it did. The server has the message, whatever its send
    /// reported (an answer cut before its head reads as a failure): nothing of it stays in the
    /// outbox, and the empty failed reply row that send left goes (the reply comes as a message
    /// of its own).
    func settlePendingRow(by message: Message) -> Bool {
        guard message.sender == .user, let clientMessageId = message.clientMessageId,
            let index = rowIndex(clientMessageId: clientMessageId), messages[index].messageId == nil
        else { return false }
        messages[index].delivery = .sent
        messages[index].messageId = message.id
        try? client.discardOutboxMessage(clientMessageId: clientMessageId)
        let after = index + 1
        if after < messages.count, messages[after].sender == .agent, messages[after].messageId == nil,
            messages[after].isError, case .text(let text) = messages[after].kind, text.isEmpty
        {
            messages.remove(at: after)
        }
        return true
    }
}
