// MessagePart: the three part kinds the Chatbase SDK documents. The core's AssembledPart keeps
// every kind a reply can carry (reasoning, sources, files, refusal, data, unknown).

import ChatStream

/// One piece of a ``Message``, in order: text, a tool call, or a tool result.
///
/// ```swift
/// for part in message.parts {
///     switch part {
///     case .text(let text): print(text)
///     case .toolCall(_, let toolName, let input): print("calls", toolName, input)
///     case .toolResult(_, let toolName, let output): print(toolName, "returned", output)
///     }
/// }
/// ```
///
/// The full parts, reasoning and sources included, are in ``Message/assembledParts``.
public enum MessagePart: Sendable, Hashable {
    /// Text written by the agent or sent by the user.
    case text(String)
    /// The agent asked for a tool.
    case toolCall(toolCallId: String, toolName: String, input: JSONValue)
    /// A tool's result.
    case toolResult(toolCallId: String, toolName: String, output: JSONValue)

    /// The documented form of a core part; nil for the kinds it has no case for.
    ///
    /// What it drops: reasoning, refusal, source, file, data and unknown parts (nil); of a tool
    /// call, its input state, `providerExecuted` and error text; of a tool result, its error text;
    /// and what ``JSONValue/init(_:)`` drops of inputs and outputs.
    public init?(_ part: AssembledPart) {
        switch part {
        case .text(let text): self = .text(text)
        case .toolCall(let call):
            self = .toolCall(toolCallId: call.toolCallId, toolName: call.toolName, input: JSONValue(call.input))
        case .toolResult(let result):
            self = .toolResult(
                toolCallId: result.toolCallId, toolName: result.toolName, output: JSONValue(result.output))
        case .reasoning, .refusal, .source, .file, .data, .unknown: return nil
        }
    }
}

extension AssembledPart {
    /// The core form of a documented part; nothing is lost (a tool call's input is complete).
    public init(_ part: MessagePart) {
        switch part {
        case .text(let text): self = .text(text)
        case .toolCall(let id, let name, let input):
            self = .toolCall(ToolCallPart(toolCallId: id, toolName: name, input: input.jsonTree))
        case .toolResult(let id, let name, let output):
            self = .toolResult(ToolResultPart(toolCallId: id, toolName: name, output: output.jsonTree))
        }
    }
}
