// ProviderRequest: a conversation as the streaming request a model provider expects, for the two
// request families most servers speak (PROTOCOLS.md section 9): OpenAI-compatible Chat
// Completions (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq, most gateways) and
// Anthropic Messages.
//
// History is given as the home protocol keeps it: user messages of text, agent messages of text,
// tool calls and the results the app posted for them. Chat Completions wants each result as a
// `tool` message after the assistant message that made the call; Anthropic wants `tool_result`
// blocks at the start of the next user turn, and no two turns of one role in a row (they are
// joined). Both refuse a call without its result, so a call the app never answered is sent with
// an error result saying so. Reasoning and other parts are the provider's own and not sent back.

/// A streaming request to a model provider, built from a conversation's history.
///
/// ```swift
/// let request = ProviderRequest(
///     family: .openAIChat, model: "llama3.2", systemPrompt: "You are terse.",
///     messages: [ProviderRequest.Message(role: .user, parts: [.text("Hello")])])
/// let url = request.url(baseURL: "http://127.0.0.1:11434/v1")  // .../v1/chat/completions
/// let body = request.body.jsonText  // {"model":"llama3.2","stream":true,"messages":[...]}
/// ```
public struct ProviderRequest: Sendable, Hashable {
    /// The request family: which shape the request has and which dialect reads its stream.
    public enum Family: String, Sendable, Hashable, CaseIterable, Codable {
        /// OpenAI-compatible Chat Completions: `POST {baseURL}/chat/completions`.
        case openAIChat = "openai-chat"
        /// Anthropic Messages: `POST {baseURL}/messages`.
        case anthropic

        /// The format the provider's stream is in.
        public var streamFormat: StreamFormat {
            switch self {
            case .openAIChat: .openAIChat
            case .anthropic: .anthropic
            }
        }
    }

    /// One message of the conversation.
    public struct Message: Sendable, Hashable {
        /// Who wrote it.
        public enum Role: String, Sendable, Hashable {
            case user
            case assistant
        }
        public var role: Role
        /// Its parts: text for a user; text, tool calls and their results for the assistant.
        public var parts: [AssembledPart]

        public init(role: Role, parts: [AssembledPart]) {
            self.role = role
            self.parts = parts
        }
    }

    /// A tool the model may call: its name, what it does, and its input's JSON schema.
    public struct Tool: Sendable, Hashable {
        public var name: String
        public var description: String
        public var inputSchema: JSONTree

        public init(name: String, description: String, inputSchema: JSONTree) {
            self.name = name
            self.description = description
            self.inputSchema = inputSchema
        }
    }

    public var family: Family
    public var model: String
    public var systemPrompt: String?
    public var messages: [Message]
    public var tools: [Tool]
    /// The most tokens to generate; Anthropic requires a value (1024 when nil).
    public var maxTokens: Int?

    public init(
        family: Family, model: String, systemPrompt: String? = nil, messages: [Message], tools: [Tool] = [],
        maxTokens: Int? = nil
    ) {
        self.family = family
        self.model = model
        self.systemPrompt = systemPrompt
        self.messages = messages
        self.tools = tools
        self.maxTokens = maxTokens
    }

    /// The default `max_tokens` of an Anthropic request.
    public static let defaultAnthropicMaxTokens = 1024

    /// The result sent for a tool call the app never answered (both families refuse a call without one).
    public static let missingResult: JSONTree = ["error": "the app gave no result for this call"]

    /// The endpoint under `baseURL` (`…/v1` for most servers): `/chat/completions` or `/messages`.
    public func url(baseURL: String) -> String {
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        switch family {
        case .openAIChat: return base + "/chat/completions"
        case .anthropic: return base + "/messages"
        }
    }

    /// The request's headers; `apiKey` (read by the caller from wherever it keeps secrets) goes
    /// in the family's header, and none is sent without it.
    public func headers(apiKey: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("Accept", "text/event-stream"),
        ]
        switch family {
        case .openAIChat:
            if let apiKey { headers.append(("Authorization", "Bearer " + apiKey)) }
        case .anthropic:
            if let apiKey { headers.append(("x-api-key", apiKey)) }
            headers.append(("anthropic-version", "2023-06-01"))
        }
        return headers
    }

    /// The JSON body, with `stream: true`.
    public var body: JSONTree {
        switch family {
        case .openAIChat: openAIBody
        case .anthropic: anthropicBody
        }
    }

    // MARK: - Chat Completions

    private var openAIBody: JSONTree {
        var messages: [JSONTree] = []
        if let systemPrompt { messages.append(["role": "system", "content": .string(systemPrompt)]) }
        for message in self.messages {
            let text = message.parts.compactMap(\.text).joined()
            switch message.role {
            case .user:
                messages.append(["role": "user", "content": .string(text)])
            case .assistant:
                let calls = Self.calls(in: message)
                var object = JSONObject()
                object["role"] = "assistant"
                object["content"] = text.isEmpty && !calls.isEmpty ? .null : .string(text)
                if !calls.isEmpty {
                    object["tool_calls"] = .array(
                        calls.map { call in
                            [
                                "id": .string(call.toolCallId), "type": "function",
                                "function": [
                                    "name": .string(call.toolName), "arguments": .string(call.input.jsonText),
                                ],
                            ]
                        })
                }
                messages.append(.object(object))
                for call in calls {
                    messages.append([
                        "role": "tool", "tool_call_id": .string(call.toolCallId),
                        "content": .string(Self.resultText(for: call, in: message)),
                    ])
                }
            }
        }
        var body = JSONObject()
        body["model"] = .string(model)
        body["stream"] = true
        if let maxTokens { body["max_tokens"] = .number(JSONNumber(maxTokens)) }
        body["messages"] = .array(messages)
        if !tools.isEmpty {
            body["tools"] = .array(
                tools.map { tool in
                    [
                        "type": "function",
                        "function": [
                            "name": .string(tool.name), "description": .string(tool.description),
                            "parameters": tool.inputSchema,
                        ],
                    ]
                })
        }
        return .object(body)
    }

    // MARK: - Anthropic Messages

    private var anthropicBody: JSONTree {
        var turns: [(role: String, blocks: [JSONTree])] = []
        func add(_ role: String, _ blocks: [JSONTree]) {
            guard !blocks.isEmpty else { return }
            if turns.last?.role == role {
                turns[turns.count - 1].blocks += blocks
            } else {
                turns.append((role, blocks))
            }
        }
        for message in messages {
            var blocks: [JSONTree] = []
            for part in message.parts {
                if let text = part.text, !text.isEmpty { blocks.append(["type": "text", "text": .string(text)]) }
            }
            switch message.role {
            case .user:
                add("user", blocks)
            case .assistant:
                let calls = Self.calls(in: message)
                for call in calls {
                    blocks.append([
                        "type": "tool_use", "id": .string(call.toolCallId), "name": .string(call.toolName),
                        "input": call.input.objectValue.map(JSONTree.object) ?? .object(JSONObject()),
                    ])
                }
                add("assistant", blocks)
                add(
                    "user",
                    calls.map { call in
                        var block = JSONObject()
                        block["type"] = "tool_result"
                        block["tool_use_id"] = .string(call.toolCallId)
                        block["content"] = .string(Self.resultText(for: call, in: message))
                        if Self.result(for: call, in: message)?.errorText != nil { block["is_error"] = true }
                        return .object(block)
                    })
            }
        }
        var body = JSONObject()
        body["model"] = .string(model)
        body["max_tokens"] = .number(JSONNumber(maxTokens ?? Self.defaultAnthropicMaxTokens))
        body["stream"] = true
        if let systemPrompt { body["system"] = .string(systemPrompt) }
        body["messages"] = .array(turns.map { ["role": .string($0.role), "content": .array($0.blocks)] })
        if !tools.isEmpty {
            body["tools"] = .array(
                tools.map {
                    ["name": .string($0.name), "description": .string($0.description), "input_schema": $0.inputSchema]
                })
        }
        return .object(body)
    }

    // MARK: - Tool calls and results

    /// The calls of an agent message the app runs (not those the provider ran itself).
    private static func calls(in message: Message) -> [ToolCallPart] {
        message.parts.compactMap { part in
            if case .toolCall(let call) = part, !call.providerExecuted { return call }
            return nil
        }
    }

    private static func result(for call: ToolCallPart, in message: Message) -> ToolResultPart? {
        for part in message.parts {
            if case .toolResult(let result) = part, result.toolCallId == call.toolCallId { return result }
        }
        return nil
    }

    /// A call's result as the text both families take: a string as it is, other JSON as its text.
    private static func resultText(for call: ToolCallPart, in message: Message) -> String {
        let output = result(for: call, in: message)?.output ?? missingResult
        return output.stringValue ?? output.jsonText
    }
}
