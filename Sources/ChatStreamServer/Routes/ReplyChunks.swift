// ReplyChunks: a reply as the chunks of the UI message stream (PROTOCOLS.md section 2)
// and their SSE bytes.
//
// Order: `start` (messageId, messageMetadata {conversationId, messageId, userMessageId}),
// `start-step`, per part either `text-start` / `text-delta`* / `text-end` or `tool-input-start` /
// `tool-input-delta`* / `tool-input-available`, `finish-step`, `finish` (finishReason,
// messageMetadata {conversationId, messageId, userMessageId, userId, finishReason, usage:{credits}}),
// then `[DONE]`. Each chunk is one `data: <json>\n\n` event.

import ChatStream

/// The IDs a reply's metadata names.
struct ReplyMetadata: Sendable, Equatable {
    var conversationId: String
    var messageId: String
    var userMessageId: String?
    var userId: String?
    var credits = 1

    /// The `finish` metadata (and the non-stream answer's `metadata`); `aborted: true` for a
    /// reply that was stopped (PROTOCOLS.md section 8).
    func finishMetadata(reason: String, aborted: Bool = false) -> JSONTree {
        var metadata: JSONTree = [
            "conversationId": .string(conversationId), "messageId": .string(messageId),
            "userMessageId": userMessageId.map { .string($0) } ?? .null, "userId": userId.map { .string($0) } ?? .null,
            "finishReason": .string(reason), "usage": ["credits": .number(JSONNumber(credits))],
        ]
        if aborted, case .object(var object) = metadata {
            object["aborted"] = true
            metadata = .object(object)
        }
        return metadata
    }
}

/// Turns a reply into UI message stream chunks, through ChatStream's public encoder.
enum ReplyChunks {
    /// The chunks of `plan`, in order (without the final `[DONE]`).
    static func chunks(for plan: ReplyPlan, metadata: ReplyMetadata) -> [JSONTree] {
        var encoder = UIMessageStreamEncoder()
        return streamEvents(for: plan, metadata: metadata).flatMap { encoder.jsonChunks(for: $0) }
    }

    /// Hands `body` each chunk of `plan` but the last, one at a time as it is encoded (each once
    /// the next is known), and returns the last (`finish`); nil when `body` answered false.
    static func eachBeforeFinish(
        of plan: ReplyPlan, metadata: ReplyMetadata, _ body: (JSONTree) -> Bool
    ) -> JSONTree? {
        var encoder = UIMessageStreamEncoder()
        var last: JSONTree?
        for event in streamEvents(for: plan, metadata: metadata) {
            for chunk in encoder.jsonChunks(for: event) {
                if let previous = last, !body(previous) { return nil }
                last = chunk
            }
        }
        return last ?? [:]
    }

    /// The metadata a reply's stream opens with (its `message-metadata` chunk after `start`).
    static func startMetadata(_ metadata: ReplyMetadata) -> JSONTree {
        [
            "conversationId": .string(metadata.conversationId), "messageId": .string(metadata.messageId),
            "userMessageId": metadata.userMessageId.map { .string($0) } ?? .null,
        ]
    }

    /// The stream events the chunks of `plan` are encoded from, in order: a generator encodes them
    /// one at a time (``chunks(for:metadata:)`` builds every chunk's JSON at once, several times the
    /// memory for a long reply).
    static func streamEvents(for plan: ReplyPlan, metadata: ReplyMetadata) -> [StreamEvent] {
        var events: [StreamEvent] = [
            .messageStart(id: metadata.messageId), .metadata(StreamMetadata(raw: startMetadata(metadata))), .stepStart,
        ]
        for (index, part) in plan.parts.enumerated() {
            switch part {
            case .text(let text):
                let id = "text-\(index)"
                events.append(.textStart(id: id))
                for word in ReplyGenerator.words(text) { events.append(.textDelta(id: id, delta: word)) }
                events.append(.textEnd(id: id))
            case .toolCall(let callId, let name, let input):
                events.append(.toolCallStart(id: callId, name: name, providerExecuted: false))
                for piece in pieces(of: input.jsonText, count: 3) {
                    events.append(.toolInputDelta(id: callId, delta: piece))
                }
                events.append(.toolInputAvailable(id: callId, name: name, input: input))
            }
        }
        events.append(.stepFinish)
        events.append(.metadata(StreamMetadata(raw: metadata.finishMetadata(reason: plan.finishReason))))
        events.append(
            .finish(reason: StreamFinishReason(normalizing: plan.finishReason), rawReason: plan.finishReason))
        return events
    }

    /// The SSE events of `chunks` followed by `data: [DONE]`, one byte array per event.
    static func events(_ chunks: [JSONTree]) -> [[UInt8]] {
        chunks.map { Array("data: \($0.jsonText)\n\n".utf8) } + [Array("data: [DONE]\n\n".utf8)]
    }

    /// `text` cut into `count` pieces of about the same length (fewer when it is short).
    static func pieces(of text: String, count: Int) -> [String] {
        let characters = Array(text)
        let size = max(1, (characters.count + count - 1) / count)
        return stride(from: 0, to: characters.count, by: size).map {
            String(characters[$0..<min($0 + size, characters.count)])
        }
    }
}
