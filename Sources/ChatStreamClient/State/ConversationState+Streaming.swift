// ConversationState+Streaming: the reply on its way into the rows. The send's callbacks queue
// each update without waiting for the main actor (StreamedUpdates); one main-actor turn applies
// everything queued by then: text joins the streaming bubble, a tool call ends it with a card,
// and the text after the call's result streams into a new bubble.

import ChatStream
import Foundation

extension ConversationState {
    nonisolated func streamCallbacks() -> @Sendable (inout StreamCallbacks) -> Void {
        // Updates are queued without waiting for the main actor; the first into an empty queue
        // schedules the one turn that applies all queued by then.
        let updates = streamedUpdates
        return { [weak self] callbacks in
            let deliver: @Sendable (StreamedUpdates.Update) -> Void = { [weak self] update in
                guard updates.add(update) else { return }
                Task { @MainActor [weak self] in self?.applyStreamedUpdates() }
            }
            callbacks.onTextDelta = { delta in deliver(.text(delta)) }
            callbacks.onToolCall = { info in deliver(.toolCall(info)) }
            callbacks.onToolResult = { info in deliver(.toolResult(info)) }
            callbacks.onReplyNamed = { [weak self] conversationId, messageId in
                await self?.noteStreamingReply(conversationId: conversationId, messageId: messageId)
            }
            _ = self
        }
    }

    func noteStreamingReply(conversationId: String, messageId: String) {
        streamingReply = (conversationId, messageId)
    }

    func startStreamingRow() {
        let row = UiMessage(id: Self.localId(), kind: .text(""), sender: .agent, isStreaming: true)
        messages.append(row)
        streamingRowId = row.id
    }

    var streamingIndex: Int? {
        streamingRowId.flatMap { id in messages.firstIndex { $0.id == id } }
    }

    /// Appends to the streaming bubble in place: the row's text is taken out first, so the append
    /// costs the delta, not the text so far.
    func append(_ delta: String) {
        guard let index = streamingIndex, case .text(var text) = messages[index].kind else { return }
        messages[index].kind = .text("")
        text += delta
        messages[index].kind = .text(text)
    }

    /// Applies every streamed update queued so far, in order, in this one main-actor turn.
    func applyStreamedUpdates() {
        let updates = streamedUpdates.take()
        guard !updates.isEmpty else { return }
        deliveryTurns += 1
        // Consecutive deltas are joined and appended once; a call or result ends the run.
        var text = ""
        func flushText() {
            if !text.isEmpty { append(text) }
            text = ""
        }
        for update in updates {
            switch update {
            case .text(let delta): text += delta
            case .toolCall(let info):
                flushText()
                show(info)
            case .toolResult(let info):
                flushText()
                show(info)
            }
        }
        flushText()
    }

    /// Ends the streaming bubble (dropping it when empty) and shows the call's card.
    func show(_ call: ToolCallInfo) {
        endStreamingRow()
        guard !messages.contains(where: { $0.id == call.toolCallId }) else { return }
        let card = ToolCallCard(toolCallId: call.toolCallId, toolName: call.toolName, input: call.input)
        messages.append(UiMessage(id: call.toolCallId, kind: .toolCall(card), sender: .agent))
    }

    /// Completes the call's card; the text after it streams into a new bubble.
    func show(_ result: ToolResultInfo) {
        if let index = messages.firstIndex(where: { $0.id == result.toolCallId }),
            case .toolCall(var card) = messages[index].kind
        {
            card.output = result.output
            card.status = ToolCallCard.status(for: result.output)
            messages[index].kind = .toolCall(card)
        }
        endStreamingRow()
        startStreamingRow()
    }

    func endStreamingRow() {
        guard let index = streamingIndex else { return }
        if case .text(let text) = messages[index].kind, text.isEmpty {
            messages.remove(at: index)
        } else {
            messages[index].isStreaming = false
        }
        streamingRowId = nil
    }
}
