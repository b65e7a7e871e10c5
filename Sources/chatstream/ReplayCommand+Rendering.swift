// The readable forms `replay` prints without --json: one line per event, a block per message.

import ChatStream

extension ReplayCommand {
    static func describe(_ event: StreamEvent) -> String {
        let value = event.jsonValue
        let type = value["type"]?.stringValue ?? "event"
        var rest = value.objectValue ?? JSONObject()
        rest["type"] = nil
        return rest.isEmpty ? type : type + " " + JSONTree.object(rest).jsonText
    }

    /// A readable form of an assembled message.
    static func render(_ message: AssembledMessage) -> String {
        var lines: [String] = []
        if message.choice > 0 || message.id != nil {
            lines.append("message \(message.id ?? "-") (choice \(message.choice))")
        }
        if let id = message.conversationId { lines.append("conversation \(id)") }
        for part in message.parts {
            switch part {
            case .text(let text): lines.append(text)
            case .reasoning(let text): lines.append("[reasoning] " + text)
            case .refusal(let text): lines.append("[refusal] " + text)
            case .toolCall(let call):
                lines.append("[tool call \(call.toolCallId)] \(call.toolName)(\(call.input.jsonText))")
            case .toolResult(let result): lines.append("[tool result \(result.toolCallId)] \(result.output.jsonText)")
            default: lines.append("[\(part.jsonValue["type"]?.stringValue ?? "part")] \(part.jsonValue.jsonText)")
            }
        }
        lines.append(
            "finish: \(message.finishReason?.rawValue ?? "none")"
                + (message.rawFinishReason.map { " (\($0))" } ?? "")
                + (message.usage.map { ", usage \($0.jsonText)" } ?? ""))
        if let error = message.error { lines.append("error: \(error.code.map { "\($0): " } ?? "")\(error.message)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
