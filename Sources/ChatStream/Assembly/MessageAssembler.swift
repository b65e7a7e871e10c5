// MessageAssembler: StreamEvents in, growing Messages out.
//
// Pure and synchronous. Parts keep stream order; a delta joins the last part when that part is
// of the same kind and ID, otherwise it starts a new part. The text-like part that may still
// grow (the open part) is held outside `message.parts`, in the builder's own `String`, so a text
// delta (the hot path: most events of a reply) is one ID check and one in-place `String.append`,
// with no enum taken out of and put back into the parts array. The held part joins the parts
// when it closes (an event of another kind or ID), when the stream finishes, and in every
// snapshot read from the assembler; a snapshot shares the text's storage, so an append after it
// copies the text once (a snapshot never changes afterwards), and an append after the snapshot
// is dropped is in place again. A tool call's input streams through an incremental
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
    /// A snapshot: a value that later events never change. Reading it costs a copy of the parts
    /// array (not of their text) while a text-like part is open.
    public var message: AssembledMessage { builders[current].snapshot }

    /// Every choice's message, in choice order.
    public var messages: [AssembledMessage] { builders.map(\.snapshot) }

    /// The message of the current choice, as ``message``, with the open text-like part moved
    /// into the parts first, so the snapshot shares the parts array instead of copying it. For
    /// readers in this package that take a snapshot after every event.
    package mutating func takeSnapshot() -> AssembledMessage {
        builders[current].materialize()
        return builders[current].message
    }

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
            builders[index].materialize()
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
        /// The message so far, without the open text-like part while that is held
        /// (``openTextIsHeld``); ``snapshot`` is the whole message.
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
        /// The index in `message.parts` of the open call's part.
        private var openToolPart = 0
        /// The open call's input parser (it is not in ``toolInputs`` while open).
        private var openToolParser: PartialJSONParser?

        init(choice: Int) { message = AssembledMessage(choice: choice) }

        /// The message with the held text-like part (if any) at the end of its parts.
        var snapshot: AssembledMessage {
            guard openTextIsHeld else { return message }
            var whole = message
            whole.parts.append(openPart)
            return whole
        }

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
                    message.parts[index] = .toolResult(part)  // a later result replaces a preliminary one
                } else {
                    toolResultParts[id] = message.parts.count
                    message.parts.append(.toolResult(part))
                }
            case .toolOutputError(let id, let errorText):
                closeText()
                message.parts.append(
                    .toolResult(
                        ToolResultPart(
                            toolCallId: id, toolName: toolName(of: id), output: ["error": .string(errorText)],
                            errorText: errorText)))
            case .source(let source):
                closeText()
                message.parts.append(.source(source))
            case .file(let url, let mediaType):
                closeText()
                message.parts.append(.file(url: url, mediaType: mediaType))
            case .data(let name, let id, let data, let transient):
                guard !transient else { return }
                closeText()
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

        /// The kinds of text-like part; `none` while no part is open.
        enum TextKind: UInt8, Sendable { case none, text, reasoning, refusal }

        /// The kind of the open text-like part: the last part, which the next delta of this
        /// kind and ``openID`` extends; `none` when the last part may not grow.
        private var openKind = TextKind.none
        /// The ID of the open part.
        private var openID = ""
        /// The open part's text while it is held here (``openTextIsHeld``); empty otherwise.
        private var openText = ""
        /// Whether the open part is held in ``openText`` instead of being the last of
        /// `message.parts`. It is not after ``materialize()``, until the next delta of the part.
        private(set) var openTextIsHeld = false

        /// The held part as a ``AssembledPart``.
        private var openPart: AssembledPart {
            switch openKind {
            case .reasoning: .reasoning(openText)
            case .refusal: .refusal(openText)
            case .text, .none: .text(openText)
            }
        }

        /// Appends a text-like delta: to the open part when it has this kind and ID, else as a
        /// new part that stays open.
        mutating func appendText(_ delta: String, id: String, kind: TextKind) {
            if kind == openKind, id == openID {
                if !openTextIsHeld { holdLastPart() }
                openText.append(delta)
                return
            }
            closeText()
            openKind = kind
            openID = id
            openText = delta
            openTextIsHeld = true
        }

        /// Moves the held part into `message.parts`; it stays open, so a later delta of its kind
        /// and ID takes it back out (``holdLastPart()``) and extends it.
        mutating func materialize() {
            guard openTextIsHeld else { return }
            message.parts.append(openPart)
            openText = ""
            openTextIsHeld = false
        }

        /// Moves the open part from the end of `message.parts` back into ``openText``. Removing
        /// the part first leaves the text's storage with no other owner (unless a snapshot
        /// holds it), so the appends that follow happen in place.
        @inline(never)
        private mutating func holdLastPart() {
            switch message.parts.removeLast() {
            case .text(let text), .reasoning(let text), .refusal(let text): openText = text
            default: preconditionFailure("the open text-like part is not the last part")
            }
            openTextIsHeld = true
        }

        /// Ends the open part: later deltas start a new part.
        private mutating func closeText() {
            materialize()
            openKind = .none
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
            swap(&taken, &message.parts[openToolPart])
            guard case .toolCall(var call) = taken else {
                message.parts[openToolPart] = taken  // not a call's part: left as it was
                return
            }
            taken = .text("")
            call.input = .null
            _ = try? openToolParser?.append(delta)
            call.input = openToolParser?.currentValue() ?? .null
            message.parts[openToolPart] = .toolCall(call)
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

        private func merge(_ old: JSONTree?, _ new: JSONTree) -> JSONTree {
            guard case .object(var merged)? = old, case .object(let additions) = new else { return new }
            for (key, value) in additions { merged[key] = value }
            return .object(merged)
        }
    }
}
