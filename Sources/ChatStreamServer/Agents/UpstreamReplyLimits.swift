// UpstreamReplyLimits: what a model's stream may make the server store, checked on each event
// before it is applied (the model path's side of the limits the API puts on what clients send).
//
// - A tool call ID the app could not send back (longer than StringLimits.idBytes, the limit of
//   `tool-result`'s `toolCallId`, or empty) is replaced by one made from the reply's ID, the same
//   for every event of that call; the stored history holds the replacement, so the next upstream
//   request pairs the call and its result with it too.
// - A tool call's input is bounded as a tool result's output is (StringLimits.toolOutputBytes of
//   JSON, StringLimits.toolOutputDepth levels), so the stored message always reads back.
// - The reply's text, reasoning and tool input together (counted as the JSON they are stored as)
//   stop at what the identity may still store (its quota, or the store's budget if less).
// - Its events as sent stop short of the bytes the reply reserved of the generating budget
//   (Replies.modelReplyBytes), leaving room for the closing events (checked by the generator,
//   with heldBound and sseBytes).
// Past a bound the reply ends as a broken upstream does: an `error` chunk after what was kept.

import ChatStream

/// Checks and adjusts a model's stream events before they are applied to a reply.
struct UpstreamReplyLimits {
    /// The bytes kept for a reply's closing events (finish-step and finish, or the error chunk,
    /// then `[DONE]`) within what it reserved.
    static let closingBytes = 2048

    /// The most bytes of events a reply that reserved `reserved` bytes may hold before its end.
    static func heldBound(reserved: Int) -> Int { reserved - closingBytes }

    /// The SSE bytes `payloads` take as ReplyRun holds them (at most: with an `id:` line).
    static func sseBytes(_ payloads: [String]) -> Int {
        payloads.reduce(0) { $0 + $1.utf8.count + "id: 4294967295\ndata: \n\n".utf8.count }
    }

    /// Why a reply was cut.
    struct Exceeded: Error {
        var message: String
    }

    /// The reply's ID (seeds replacement tool call IDs).
    let messageId: String
    /// The bytes of text, reasoning and tool input (as stored JSON) it may hold.
    let maxBytes: Int
    private var bytes = 0
    private var replacedIds: [String: String] = [:]

    init(messageId: String, maxBytes: Int) {
        self.messageId = messageId
        self.maxBytes = maxBytes
    }

    /// `event` as the reply takes it (a tool call ID replaced), or the bound it would pass.
    mutating func admit(_ event: StreamEvent) throws(Exceeded) -> StreamEvent {
        switch event {
        case .textDelta(_, let delta), .reasoningDelta(_, let delta), .refusalDelta(_, let delta):
            try count(delta)
            return event
        case .toolCallStart(let id, let name, let providerExecuted):
            return .toolCallStart(id: callId(id), name: name, providerExecuted: providerExecuted)
        case .toolInputDelta(let id, let delta):
            try count(delta)
            return .toolInputDelta(id: callId(id), delta: delta)
        case .toolInputAvailable(let id, let name, let input):
            do {
                try StringLimits.check(
                    json: input, field: "input", maxBytes: StringLimits.toolOutputBytes,
                    maxDepth: StringLimits.toolOutputDepth)
            } catch {
                throw Exceeded(message: "the model's tool call \(name): \(error.message)")
            }
            return .toolInputAvailable(id: callId(id), name: name, input: input)
        case .toolInputError(let id, let name, let errorText):
            return .toolInputError(id: callId(id), name: name, errorText: errorText)
        case .toolResult(let id, let name, let output, let preliminary):
            return .toolResult(id: callId(id), name: name, output: output, preliminary: preliminary)
        case .toolOutputError(let id, let errorText):
            return .toolOutputError(id: callId(id), errorText: errorText)
        default:
            return event
        }
    }

    private mutating func count(_ delta: String) throws(Exceeded) {
        bytes += Self.storedBytes(delta)
        guard bytes <= maxBytes else {
            throw Exceeded(
                message:
                    "the model's reply passed the \(maxBytes) bytes this identity may still store; it was cut there")
        }
    }

    /// The bytes `text` takes inside a JSON string (escapes counted).
    static func storedBytes(_ text: String) -> Int {
        var count = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: count += 2
            case ..<0x20: count += 6
            default: count += 1
            }
        }
        return count
    }

    /// The ID the app sees for the upstream's tool call `id`.
    private mutating func callId(_ id: String) -> String {
        guard id.isEmpty || id.utf8.count > StringLimits.idBytes else { return id }
        if let replaced = replacedIds[id] { return replaced }
        let replaced = "call_" + messageId.filter { $0 != "-" }.prefix(24) + "_\(replacedIds.count + 1)"
        replacedIds[id] = replaced
        return replaced
    }
}
