// MessageAssembler: StreamEvents in, growing Messages out.
//
// Pure and synchronous. Parts keep stream order; a delta joins the last part when that part is
// of the same kind and ID, otherwise it starts a new part. Text is appended in place (the part's
// string is taken out of the array before appending, so it is not copied while the assembler
// holds the only reference). A tool call's input streams through an incremental
// `PartialJSONParser`, so the partial value after every delta costs work proportional to the
// delta, not to the input so far.

/// Builds ``AssembledMessage``s from ``StreamEvent``s: one message, or one per choice.
///
/// ```swift
/// var assembler = MessageAssembler()
/// for event in events { assembler.apply(event) }
/// let message = assembler.finish(error: nil)[0]
/// print(message.text)
/// ```
public struct MessageAssembler: Sendable {
    private var builders: [Builder] = [Builder(choice: 0)]
    private var current = 0

    /// Limits for the partial tool-input parser.
    public var toolInputLimits: JSONConfiguration

    public init(toolInputLimits: JSONConfiguration = JSONConfiguration()) {
        self.toolInputLimits = toolInputLimits
    }

    /// The message of the choice that the last event belonged to, as it stands.
    public var message: AssembledMessage { builders[current].message }

    /// Every choice's message, in choice order.
    public var messages: [AssembledMessage] { builders.map(\.message) }

    /// The choice the last event belonged to.
    public var currentChoice: Int { current }

    /// Applies one event.
    public mutating func apply(_ event: StreamEvent) {
        if case .choice(let index) = event {
            while builders.count <= index {
                // A new choice belongs to the same response: same message ID and conversation.
                var builder = Builder(choice: builders.count)
                builder.message.id = builders[0].message.id
                builder.message.conversationId = builders[0].message.conversationId
                builders.append(builder)
            }
            current = index
            return
        }
        if case .conversationAssigned(let id) = event {
            for index in builders.indices { builders[index].message.conversationId = id }
            return
        }
        if case .metadata = event, builders.count > 1 {
            // Metadata (usage above all) describes the whole response, not one choice.
            for index in builders.indices { builders[index].apply(event, limits: toolInputLimits) }
            return
        }
        builders[current].apply(event, limits: toolInputLimits)
    }

    /// Ends the stream and returns every choice's final message. An `error` (truncation,
    /// malformed input) is recorded on messages that carry none yet; nothing assembled is lost.
    public mutating func finish(error: StreamError? = nil) -> [AssembledMessage] {
        for index in builders.indices {
            builders[index].message.isFinished = true
            if let error, builders[index].message.error == nil {
                builders[index].message.error = error.info
            }
        }
        return messages
    }
}

extension MessageAssembler {
    /// One choice's message under construction.
    struct Builder: Sendable {
        var message: AssembledMessage
        /// Tool call ID -> index of its part.
        var toolCallParts: [String: Int] = [:]
        /// Tool call ID -> index of its result part.
        var toolResultParts: [String: Int] = [:]
        /// Tool call ID -> the input parser while the input streams.
        var toolInputs: [String: PartialJSONParser] = [:]

        init(choice: Int) { message = AssembledMessage(choice: choice) }

        mutating func apply(_ event: StreamEvent, limits: JSONConfiguration) {
            switch event {
            case .messageStart(let id):
                if let id, message.id == nil { message.id = id }
            case .textDelta(let id, let delta):
                appendText(delta, id: id, kind: .text)
            case .reasoningDelta(let id, let delta):
                appendText(delta, id: id, kind: .reasoning)
            case .refusalDelta(let id, let delta):
                appendText(delta, id: id, kind: .refusal)
            case .textStart, .textEnd, .reasoningStart, .reasoningEnd, .stepStart, .stepFinish, .done, .choice,
                .conversationAssigned:
                lastTextKey = nil
            case .toolCallStart(let id, let name, let providerExecuted):
                lastTextKey = nil
                if let index = toolCallParts[id], case .toolCall(var call) = message.parts[index] {
                    if !name.isEmpty { call.toolName = name }
                    message.parts[index] = .toolCall(call)
                } else {
                    addToolCall(
                        ToolCallPart(
                            toolCallId: id, toolName: name, input: .null, state: .streaming,
                            providerExecuted: providerExecuted))
                }
            case .toolInputDelta(let id, let delta):
                if toolCallParts[id] == nil {
                    // A delta for a call that never started: kept under an empty tool name.
                    addToolCall(ToolCallPart(toolCallId: id, toolName: "", input: .null, state: .streaming))
                }
                var parser =
                    toolInputs.removeValue(forKey: id)
                    ?? PartialJSONParser(
                        maxDepth: limits.maxDepth, maxBytes: limits.maxValueBytes)
                // The part's partial input shares storage with the parser's value under way: drop
                // it first, so the parser appends in place instead of copying everything so far.
                // (Invalid input leaves the parser's best partial value, and the stream's own
                // tool-input-available or tool-input-error settles the input later.)
                updateToolCall(id) { call in call.input = .null }
                _ = try? parser.append(delta)
                let partial = parser.value ?? .null
                toolInputs[id] = parser
                updateToolCall(id) { call in call.input = partial }
            case .toolInputAvailable(let id, let name, let input):
                toolInputs[id] = nil
                if toolCallParts[id] == nil {
                    addToolCall(ToolCallPart(toolCallId: id, toolName: name, input: input))
                } else {
                    updateToolCall(id) { call in
                        call.input = input
                        call.state = .available
                        if !name.isEmpty { call.toolName = name }
                    }
                }
            case .toolInputError(let id, let name, let errorText):
                toolInputs[id] = nil
                if toolCallParts[id] == nil {
                    addToolCall(ToolCallPart(toolCallId: id, toolName: name ?? "", input: .null, state: .error))
                }
                updateToolCall(id) { call in
                    call.state = .error
                    call.errorText = errorText
                    if let name, !name.isEmpty { call.toolName = name }
                }
            case .toolResult(let id, let name, let output, _):
                lastTextKey = nil
                let part = ToolResultPart(toolCallId: id, toolName: name ?? toolName(of: id), output: output)
                if let index = toolResultParts[id] {
                    message.parts[index] = .toolResult(part)  // a later result replaces a preliminary one
                } else {
                    toolResultParts[id] = message.parts.count
                    message.parts.append(.toolResult(part))
                }
            case .toolOutputError(let id, let errorText):
                lastTextKey = nil
                message.parts.append(
                    .toolResult(
                        ToolResultPart(
                            toolCallId: id, toolName: toolName(of: id), output: ["error": .string(errorText)],
                            errorText: errorText)))
            case .source(let source):
                lastTextKey = nil
                message.parts.append(.source(source))
            case .file(let url, let mediaType):
                lastTextKey = nil
                message.parts.append(.file(url: url, mediaType: mediaType))
            case .data(let name, let id, let data, let transient):
                guard !transient else { return }
                lastTextKey = nil
                message.parts.append(.data(name: name, id: id, data: data))
            case .metadata(let metadata):
                if let id = metadata.messageId, message.id == nil { message.id = id }
                if let id = metadata.userMessageId { message.userMessageId = id }
                if let id = metadata.conversationId, message.conversationId == nil { message.conversationId = id }
                if let usage = metadata.usage { message.usage = usage }
                if let raw = metadata.raw { message.metadata = merge(message.metadata, raw) }
            case .finish(let reason, let rawReason):
                message.finishReason = reason
                message.rawFinishReason = rawReason
            case .error(let info):
                message.error = info
            }
        }

        private enum TextKind: Hashable, Sendable { case text, reasoning, refusal }
        private struct TextKey: Hashable, Sendable {
            var id: String
            var kind: TextKind
        }
        /// The ID and kind of the text-like part at the end of `parts`, while it may still grow.
        private var lastTextKey: TextKey?

        private mutating func appendText(_ delta: String, id: String, kind: TextKind) {
            let key = TextKey(id: id, kind: kind)
            if key == lastTextKey, let last = message.parts.indices.last, message.parts[last].appendInPlace(delta) {
                return
            }
            switch kind {
            case .text: message.parts.append(.text(delta))
            case .reasoning: message.parts.append(.reasoning(delta))
            case .refusal: message.parts.append(.refusal(delta))
            }
            lastTextKey = key
        }

        private mutating func addToolCall(_ call: ToolCallPart) {
            lastTextKey = nil
            toolCallParts[call.toolCallId] = message.parts.count
            message.parts.append(.toolCall(call))
        }

        private mutating func updateToolCall(_ id: String, _ change: (inout ToolCallPart) -> Void) {
            guard let index = toolCallParts[id], case .toolCall(var call) = message.parts[index] else { return }
            message.parts[index] = .text("")
            change(&call)
            message.parts[index] = .toolCall(call)
        }

        private func toolName(of id: String) -> String {
            if let index = toolCallParts[id], case .toolCall(let call) = message.parts[index] { return call.toolName }
            return ""
        }

        private func merge(_ old: JSONValue?, _ new: JSONValue) -> JSONValue {
            guard case .object(var merged)? = old, case .object(let additions) = new else { return new }
            for (key, value) in additions { merged[key] = value }
            return .object(merged)
        }
    }
}

extension MessagePart {
    /// Appends `delta` to a text, reasoning or refusal part without copying its text; false
    /// (and no change) for other parts.
    ///
    /// The text is taken out of the part (leaving an empty part behind) in a separate call, so
    /// no copy of the old part outlives the take and the string holds the only reference: the
    /// append then happens in its own storage (amortized O(delta), not O(text)).
    fileprivate mutating func appendInPlace(_ delta: String) -> Bool {
        let kind: Int
        switch self {
        case .text: kind = 0
        case .reasoning: kind = 1
        case .refusal: kind = 2
        default: return false
        }
        var text = takeText()
        text += delta
        self = kind == 0 ? .text(text) : kind == 1 ? .reasoning(text) : .refusal(text)
        return true
    }

    @inline(never)
    private mutating func takeText() -> String {
        var taken = MessagePart.text("")
        swap(&self, &taken)
        switch taken {
        case .text(let text), .reasoning(let text), .refusal(let text): return text
        default: return ""
        }
    }
}
