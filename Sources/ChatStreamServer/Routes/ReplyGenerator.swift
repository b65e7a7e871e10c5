// ReplyGenerator: the demo agent's deterministic replies.
//
// A message mentioning "weather" (any case) is answered with a call of the `get_weather` tool,
// input `{"city": <the word after "in", capitalised, or "Paris">}`, finishing with `tool-calls`.
// Continuing after the client posted the tool's result gives a text built from that output.
// Anything else is echoed back: "You said: <message>. ..." The same input always gives the same
// text; only IDs differ.

import ChatStream

/// One part of a reply about to be streamed and stored.
enum ReplyPart: Sendable {
    case text(String)
    case toolCall(id: String, name: String, input: JSONTree)

    /// The part in the history wire shape.
    var jsonValue: JSONTree {
        switch self {
        case .text(let text): AssembledPart.text(text).jsonValue
        case .toolCall(let id, let name, let input):
            AssembledPart.toolCall(ToolCallPart(toolCallId: id, toolName: name, input: input)).jsonValue
        }
    }
}

/// A complete reply: its parts and why it finished.
struct ReplyPlan: Sendable {
    var parts: [ReplyPart]
    var finishReason: String
}

/// Produces the demo agent's replies.
enum ReplyGenerator {
    /// The reply to a user message; `messageId` (the reply's ID) seeds the tool call ID.
    static func reply(to message: String, messageId: String) -> ReplyPlan {
        if message.fastLowercased.contains("weather") {
            let input: JSONTree = ["city": .string(city(in: message))]
            let callId = "call_" + messageId.replacingOccurrences(of: "-", with: "").prefix(16)
            return ReplyPlan(
                parts: [.toolCall(id: callId, name: "get_weather", input: input)], finishReason: "tool-calls")
        }
        let text =
            "You said: \(message). I am the ChatStream demo agent: I repeat what you write, so every reply is predictable."
        return ReplyPlan(parts: [.text(text)], finishReason: "stop")
    }

    /// The reply when the client continues without a message: built from the tool results of the
    /// latest agent message (or a short prompt when there are none).
    static func continuation(after messages: [MessageRecord]) -> ReplyPlan {
        let last = messages.last { !$0.isFromUser }
        let calls = last?.parts.filter { $0["type"]?.stringValue == "tool-call" } ?? []
        let results = last?.parts.filter { $0["type"]?.stringValue == "tool-result" } ?? []
        guard !calls.isEmpty else {
            return ReplyPlan(parts: [.text("Is there anything else I can help you with?")], finishReason: "stop")
        }
        var sentences: [String] = []
        for call in calls {
            let id = call["toolCallId"]?.stringValue
            let name = call["toolName"]?.stringValue ?? "tool"
            guard let result = results.first(where: { $0["toolCallId"]?.stringValue == id }) else {
                sentences.append("I did not get a result from \(name).")
                continue
            }
            let output = result["output"] ?? .null
            let rendered = output.stringValue ?? output.jsonText
            if name == "get_weather", let city = call["input"]?["city"]?.stringValue {
                sentences.append("The weather in \(city): \(rendered).")
            } else {
                sentences.append("\(name) returned \(rendered).")
            }
        }
        return ReplyPlan(parts: [.text(sentences.joined(separator: " "))], finishReason: "stop")
    }

    /// The word after "in" ("weather in tokyo?" gives "Tokyo"), or "Paris".
    static func city(in message: String) -> String {
        let words = message.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map { word in
            String(word.filter { $0.isLetter || $0 == "-" })
        }
        guard let index = words.lastIndex(where: { $0.lowercased() == "in" }), index + 1 < words.count,
            let first = words[index + 1].first
        else { return "Paris" }
        return first.uppercased() + words[index + 1].dropFirst()
    }

    /// Text cut after every space, the way the reply streams ("a b c" gives "a ", "b ", "c").
    static func words(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for character in text {
            current.append(character)
            if character == " " {
                pieces.append(current)
                current = ""
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }
}
