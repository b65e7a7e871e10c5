// The documented streaming hooks of send and retry, and the tool handler type.

/// Runs a client-side tool: the agent's input in, the output to post back. Throwing posts
/// `{"error": <the error's localizedDescription>}` instead (cancellation ends the send).
public typealias ToolHandler = @Sendable (JSONValue) async throws -> JSONValue

/// What ``StreamCallbacks/onToolCall`` receives: a tool the agent asked for.
public struct ToolCallInfo: Sendable, Hashable {
    /// The call's ID; its ``ToolResultInfo`` has the same.
    public let toolCallId: String
    /// The tool's name.
    public let toolName: String
    /// What the agent passed to the tool.
    public let input: JSONValue

    /// A tool call.
    public init(toolCallId: String, toolName: String, input: JSONValue) {
        self.toolCallId = toolCallId
        self.toolName = toolName
        self.input = input
    }
}

/// What ``StreamCallbacks/onToolResult`` receives: a tool's result.
public struct ToolResultInfo: Sendable, Hashable {
    /// The ID of the call it answers.
    public let toolCallId: String
    /// The tool's name.
    public let toolName: String
    /// What the tool returned (an object with an `error` key when it failed).
    public let output: JSONValue

    /// A tool result.
    public init(toolCallId: String, toolName: String, output: JSONValue) {
        self.toolCallId = toolCallId
        self.toolName = toolName
        self.output = output
    }
}

/// The hooks ``ChatbaseClient/send(_:conversationId:clientMessageId:configure:)`` and
/// ``ChatbaseClient/retry(conversationId:messageId:configure:)`` call while a reply streams. Set
/// only the ones you need; the send awaits each before reading on.
///
/// ```swift
/// let response = try await client.send("Tell me a story") { callbacks in
///     callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
///     callbacks.onToolResult = { result in print("\n", result.toolName, "done") }
/// }
/// ```
public struct StreamCallbacks: Sendable {
    /// Each piece of reply text, as it arrives.
    public var onTextDelta: (@Sendable (String) async -> Void)?
    /// Each tool call once its input is complete, before its handler runs.
    public var onToolCall: (@Sendable (ToolCallInfo) async -> Void)?
    /// Each tool result: a client handler's once it is posted to the server, or the server's own.
    public var onToolResult: (@Sendable (ToolResultInfo) async -> Void)?
    /// The reply's conversation and message IDs, once the stream named both (ConversationState's stop).
    var onReplyNamed: (@Sendable (_ conversationId: String, _ messageId: String) async -> Void)?

    /// No callbacks.
    public init() {}
}

/// Whether requests carry a signed-in user's token.
public enum AuthState: Sendable, Hashable {
    /// Device ID only.
    case anonymous
    /// Signed in with `token` (``ChatbaseClient/identify(token:)``).
    case identified(token: String)
}
