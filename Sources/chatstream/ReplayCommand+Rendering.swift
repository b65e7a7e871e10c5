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

    /// Writes a readable form of an assembled message, line by line, to `write`: a part's text
    /// is handed over as it is held (a reply of hundreds of megabytes is not copied into one more
    /// string to be printed).
    static func render(_ message: AssembledMessage, to write: (String) -> Void) {
        func line(_ pieces: String...) {
            for piece in pieces { write(piece) }
            write("\n")
        }
        if message.choice > 0 || message.id != nil {
            line("message \(message.id ?? "-") (choice \(message.choice))")
        }
        if let id = message.conversationId { line("conversation \(id)") }
        for part in message.parts {
            switch part {
            case .text(let text): line(text)
            case .reasoning(let text): line("[reasoning] ", text)
            case .refusal(let text): line("[refusal] ", text)
            case .toolCall(let call):
                line("[tool call \(call.toolCallId)] \(call.toolName)(\(call.input.jsonText))")
            case .toolResult(let result): line("[tool result \(result.toolCallId)] \(result.output.jsonText)")
            default: line("[\(part.jsonValue["type"]?.stringValue ?? "part")] \(part.jsonValue.jsonText)")
            }
        }
        line(
            "finish: \(message.finishReason?.rawValue ?? "none")"
                + (message.rawFinishReason.map { " (\($0))" } ?? "")
                + (message.usage.map { ", usage \($0.jsonText)" } ?? ""))
        if let error = message.error { line("error: \(error.code.map { "\($0): " } ?? "")\(error.message)") }
    }
}
