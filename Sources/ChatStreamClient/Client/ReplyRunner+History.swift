// ReplyRunner+History: a broken reply completed from the conversation's history, when the
// server cannot resume it (a server without PROTOCOLS.md section 8 answers 404, expired events
// 410): the stored message is read (waiting, within the retry budget, while it is not stored yet)
// and only what the app has not seen is handed over, as the events that take the reply as seen
// to the reply as stored.

import ChatStream
import Foundation

extension ReplyRunner {
    /// Reads the stored reply from history and hands over only what the app has not seen: the
    /// text after the text already streamed, the tool calls and results not yet shown, and the
    /// finish. Waits (with the retry policy's backoff and budget) while the reply is not stored yet.
    func completeFromHistory(
        _ reading: inout ReplyReading, conversationId: String, messageId: String, index: Int,
        emit: (ChatUpdate) async -> Void
    ) async throws {
        var retries = 0
        var waited = Duration.zero
        var stored: Message?
        while stored == nil {
            let page = try await client.listMessages(conversationId: conversationId, limit: 20)
            stored = page.data.first { $0.id == messageId }
            if stored != nil { break }
            let wait = client.retryPolicy.delay(retry: retries)
            guard retries + 1 < client.retryPolicy.maxAttempts, waited + wait <= client.retryPolicy.totalBudget else {
                throw APIError.httpError(
                    statusCode: 404,
                    detail: APIErrorDetail(
                        code: "RESOURCE_MESSAGE_NOT_FOUND",
                        message: "reply \(messageId) is neither resumable nor in the conversation's history"))
            }
            try await client.retryPolicy.sleep(wait)
            waited += wait
            retries += 1
        }
        guard let stored else { return }
        let events = Self.unseenEvents(
            of: stored, after: reading.message, openTextId: reading.openTextId, conversationId: conversationId)
        for event in events {
            reading.assembler.apply(event)
            reading.handedOver += 1
            await emit(ChatUpdate(event: event, message: reading.message, round: index))
        }
    }

    /// The events that take `seen` to the stored message `stored`: the rest of its text (into the
    /// open text part `openTextId`, when there is one), its tool calls and results not seen yet,
    /// and a finish (an error for a reply a server restart interrupted).
    static func unseenEvents(
        of stored: Message, after seen: AssembledMessage, openTextId: String?, conversationId: String
    ) -> [StreamEvent] {
        var events: [StreamEvent] = []
        if seen.id == nil { events.append(.messageStart(id: stored.id)) }
        if seen.conversationId == nil { events.append(.conversationAssigned(id: conversationId)) }
        let seenText = seen.parts.compactMap(\.text).joined()
        let storedText = stored.parts.compactMap { part -> String? in
            if case .text(let text) = part { return text }
            return nil
        }.joined()
        if storedText.count > seenText.count, storedText.hasPrefix(seenText) {
            // The rest continues the open text part, or is a part of its own.
            let textId = openTextId ?? "resumed-" + stored.id
            if openTextId == nil { events.append(.textStart(id: textId)) }
            events.append(.textDelta(id: textId, delta: String(storedText.dropFirst(seenText.count))))
            events.append(.textEnd(id: textId))
        }
        let seenCalls = Set(seen.toolCalls.map(\.toolCallId))
        let seenResults = Set(
            seen.parts.compactMap { part -> String? in
                if case .toolResult(let result) = part { return result.toolCallId }
                return nil
            })
        var unanswered = Set<String>()
        for part in stored.parts {
            switch part {
            case .toolCall(let id, let name, let input):
                unanswered.insert(id)
                if !seenCalls.contains(id) {
                    events.append(.toolInputAvailable(id: id, name: name, input: input.jsonTree))
                }
            case .toolResult(let id, let name, let output):
                unanswered.remove(id)
                if !seenResults.contains(id) {
                    events.append(.toolResult(id: id, name: name, output: output.jsonTree, preliminary: false))
                }
            case .text: break
            }
        }
        if stored.isInterrupted {
            // Cut by a server restart: it ends as the resume route would end it, with an error.
            events.append(.error(StreamErrorInfo(message: "the reply was interrupted by a server restart")))
            return events
        }
        let reason: StreamFinishReason = unanswered.isEmpty ? .stop : .toolCalls
        events.append(.finish(reason: reason, rawReason: reason.rawValue))
        return events
    }
}
