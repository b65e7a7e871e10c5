// MessageAssembler: StreamEvents in, growing Messages out.
//
// Pure and synchronous. Parts keep stream order; a delta joins the last part when that part is
// of the same kind and ID, otherwise it starts a new part. The text-like part that may still
// grow (the open part) is held in the message as a `GrowingText`, outside its closed parts, so a
// text delta (the hot path: most events of a reply) is one ID check and one in-place append, with
// no enum taken out of and put back into the parts array. A snapshot is the message value itself:
// a retain of the parts array and of the open part's newest chunk. An append while a snapshot
// holds that chunk adds the delta as a chunk of its own after it (small chunks are merged once
// they hold `GrowingText.chunkBytes`), so a consumer that keeps the latest snapshot pays for each
// delta, not for the text so far; an append with no snapshot held is in place in one `String`.
// The open part becomes a `String` part when it closes (an event of another kind or ID). A tool call's input streams through an incremental
// `PartialJSONParser`, so the partial value after every delta costs work proportional to the
// delta, not to the input so far. The call whose input streamed last (the open call) keeps its
// ID, part index and parser in the builder, so its next delta (the hot path of a tool call) is
// one ID comparison, with no `String` hashed and the part taken out of the parts array once.

import ChatStreamJSON

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
    ///
    /// A snapshot: a value that later events never change. Taking it costs a retain (no text
    /// is copied), and holding it while later events are applied costs them their deltas only.
    public var message: AssembledMessage { builders[current].message }

    /// Every choice's message, in choice order.
    public var messages: [AssembledMessage] { builders.map(\.message) }

    /// The choice the last event belonged to.
    public var currentChoice: Int { current }

    /// Applies one event.
    public mutating func apply(_ event: StreamEvent) {
        if case .textDelta(let id, let delta) = event {
            // The hot path, ahead of the checks below that a text delta never matches.
            builders[current].appendText(delta, id: id, kind: .text)
            return
        }
        if case .toolInputDelta(let id, let delta) = event {
            // The hot path of a streamed tool call.
            builders[current].appendToolInput(delta, id: id, limits: toolInputLimits)
            return
        }
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
            // The open part stays open (a late delta still joins it) but as one chunk, so reading
            // the final messages is O(1).
            builders[index].message.openText.collapse()
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
        /// The message so far.
        var message: AssembledMessage
        /// Tool call ID -> index of its part.
        var toolCallParts: [String: Int] = [:]
        /// Tool call ID -> index of its result part.
        var toolResultParts: [String: Int] = [:]
        /// Tool call ID -> the input parser while the input streams, for calls other than the
        /// open call (``openToolID``), whose parser is ``openToolParser``.
        var toolInputs: [String: PartialJSONParser] = [:]
        /// Whether a call's input is open: its ID, part index and parser are held below.
        private var hasOpenTool = false
        /// The ID of the call whose input delta came last.
        private var openToolID = ""
        /// The index in `message.closedParts` of the open call's part.
        private var openToolPart = 0
        /// The open call's input parser (it is not in ``toolInputs`` while open).
        private var openToolParser: PartialJSONParser?

        init(choice: Int) { message = AssembledMessage(choice: choice) }

        mutating func apply(_ event: StreamEvent, limits: JSONConfiguration) {
            switch event {
            case .messageStart(let id):
                if let id, message.id == nil { message.id = id }
            case .textDelta(let id, let delta):
                appendText(delta, id: id, kind: .text)  // MessageAssembler.apply takes the fast path first
            case .reasoningDelta(let id, let delta):
                appendText(delta, id: id, kind: .reasoning)
            case .refusalDelta(let id, let delta):
                appendText(delta, id: id, kind: .refusal)
            case .textStart, .textEnd, .reasoningStart, .reasoningEnd, .stepStart, .stepFinish, .done, .choice,
                .conversationAssigned:
                closeText()
            case .toolCallStart(let id, let name, let providerExecuted):
                closeText()
                if let index = toolCallParts[id], case .toolCall(var call) = message.closedParts[index] {
                    if !name.isEmpty { call.toolName = name }
                    if providerExecuted { call.providerExecuted = true }
                    message.closedParts[index] = .toolCall(call)
                } else {
                    addToolCall(
                        ToolCallPart(
                            toolCallId: id, toolName: name, input: .null, state: .streaming,
                            providerExecuted: providerExecuted))
                }
            case .toolInputDelta(let id, let delta):
                appendToolInput(delta, id: id, limits: limits)
            case .toolInputAvailable(let id, let name, let input):
                dropToolInput(id)
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
                dropToolInput(id)
                if toolCallParts[id] == nil {
                    addToolCall(ToolCallPart(toolCallId: id, toolName: name ?? "", input: .null, state: .error))
                }
                updateToolCall(id) { call in
                    call.state = .error
                    call.errorText = errorText
                    if let name, !name.isEmpty { call.toolName = name }
                }
            case .toolResult(let id, let name, let output, _):
                closeText()
                let part = ToolResultPart(toolCallId: id, toolName: name ?? toolName(of: id), output: output)
                if let index = toolResultParts[id] {
                    message.closedParts[index] = .toolResult(part)  // a later result replaces a preliminary one
                } else {
                    toolResultParts[id] = message.closedParts.count
                    message.closedParts.append(.toolResult(part))
                }
            case .toolOutputError(let id, let errorText):
                closeText()
                message.closedParts.append(
                    .toolResult(
                        ToolResultPart(
                            toolCallId: id, toolName: toolName(of: id), output: ["error": .string(errorText)],
                            errorText: errorText)))
            case .source(let source):
                closeText()
                message.closedParts.append(.source(source))
            case .file(let url, let mediaType):
                closeText()
                message.closedParts.append(.file(url: url, mediaType: mediaType))
            case .unknown(let type, let raw):
                closeText()
                message.closedParts.append(.unknown(type: type, raw: raw))
            case .data(let name, let id, let data, let transient):
                guard !transient else { return }
                closeText()
                message.closedParts.append(.data(name: name, id: id, data: data))
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

        /// The ID of the open text-like part (`message.openKind`), which the next delta of its
        /// kind and this ID extends.
        private var openID = ""

        /// Appends a text-like delta: to the open part when it has this kind and ID, else as a
        /// new part that stays open.
        mutating func appendText(_ delta: String, id: String, kind: AssembledMessage.TextPartKind) {
            if kind == message.openKind, id == openID {
                message.openText.append(delta)
                return
            }
            closeText()
            message.openKind = kind
            openID = id
            message.openText = GrowingText(delta)
        }

        /// Ends the open part: it joins the closed parts as a `String` part, and later deltas
        /// start a new part.
        private mutating func closeText() {
            guard message.openKind != .none else { return }
            message.closedParts.append(message.openPart)
            message.openKind = .none
            message.openText = GrowingText()
            openID = ""
        }

        /// Appends a tool-input delta to its call's partial input: to the open call's parser when
        /// the ID is the open call's (one comparison), else after ``openToolInput(_:limits:)``.
        mutating func appendToolInput(_ delta: String, id: String, limits: JSONConfiguration) {
            if !hasOpenTool || id != openToolID { openToolInput(id, limits: limits) }
            // The part's partial input shares storage with the parser's value under way: move the
            // part out (a swap, no copy) and drop the input first, so the parser appends in place
            // instead of copying everything so far. (Invalid input leaves the parser's best
            // partial value, and the stream's own tool-input-available or tool-input-error
            // settles the input later.)
            var taken = AssembledPart.text("")
            swap(&taken, &message.closedParts[openToolPart])
            guard case .toolCall(var call) = taken else {
                message.closedParts[openToolPart] = taken  // not a call's part: left as it was
                return
            }
            taken = .text("")
            call.input = .null
            _ = try? openToolParser?.append(delta)
            call.input = openToolParser?.currentValue() ?? .null
            message.closedParts[openToolPart] = .toolCall(call)
        }

        /// Makes `id` the open call: the previous open call's parser goes back to
        /// ``toolInputs``, and `id`'s comes out of it (or starts). A delta for a call that never
        /// started adds the call under an empty tool name.
        @inline(never)
        private mutating func openToolInput(_ id: String, limits: JSONConfiguration) {
            if hasOpenTool, let parser = openToolParser { toolInputs[openToolID] = parser }
            if toolCallParts[id] == nil {
                addToolCall(ToolCallPart(toolCallId: id, toolName: "", input: .null, state: .streaming))
            }
            openToolPart = toolCallParts[id] ?? 0
            openToolParser =
                toolInputs.removeValue(forKey: id)
                ?? PartialJSONParser(maxDepth: limits.maxDepth, maxBytes: limits.maxValueBytes)
            openToolID = id
            hasOpenTool = true
        }

        /// Forgets `id`'s input parser (its input is settled).
        private mutating func dropToolInput(_ id: String) {
            if hasOpenTool, id == openToolID {
                hasOpenTool = false
                openToolID = ""
                openToolParser = nil
            }
            toolInputs[id] = nil
        }

        private mutating func addToolCall(_ call: ToolCallPart) {
            closeText()
            toolCallParts[call.toolCallId] = message.closedParts.count
            message.closedParts.append(.toolCall(call))
        }

        private mutating func updateToolCall(_ id: String, _ change: (inout ToolCallPart) -> Void) {
            guard let index = toolCallParts[id], case .toolCall(var call) = message.closedParts[index] else { return }
            message.closedParts[index] = .text("")
            change(&call)
            message.closedParts[index] = .toolCall(call)
        }

        private func toolName(of id: String) -> String {
            guard let index = toolCallParts[id], case .toolCall(let call) = message.closedParts[index] else {
                return ""
            }
            return call.toolName
        }

        private func merge(_ old: JSONTree?, _ new: JSONTree) -> JSONTree {
            guard case .object(var merged)? = old, case .object(let additions) = new else { return new }
            for (key, value) in additions { merged[key] = value }
            return .object(merged)
        }
    }
}

extension MessageAssembler: StreamEventSink {
    /// Applies the text delta (so a decoder feeds an assembler straight:
    /// `try decoder.feed(chunk, into: &assembler)`).
    public mutating func textDelta(id: String, delta: CheckedUTF8) {
        builders[current].appendText(delta.string, id: id, kind: .text)
    }

    /// Applies the event, as ``apply(_:)`` does.
    public mutating func event(_ event: StreamEvent) {
        apply(event)
    }
}
