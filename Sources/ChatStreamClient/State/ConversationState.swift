// Observable state for one chat screen, in the shape the Chatbase SDK documents: the main actor
// owns it, the client does the work. A send shows the user's message at once and streams the
// reply into a placeholder bubble; each tool call becomes a card (executing, then success or
// failure) and the text after it a new bubble; the finished response stamps the server's IDs.
// History expands each message's parts into bubbles and cards the same way.

import ChatStream
import Foundation
import Observation

/// One conversation for a UI: its messages as bubbles and tool cards, the reply streaming in,
/// and what went wrong.
///
/// ```swift
/// @State var state = ConversationState(client: client)
/// // ...
/// Task { await state.sendMessage(input) }
/// ForEach(state.messages) { message in
///     switch message.kind {
///     case .text(let text): Text(text)
///     case .toolCall(let card): Text("\(card.toolName): \(card.status)")
///     }
/// }
/// ```
///
/// A ``ConversationListState`` shown beside it stays current through ``onReply``.
@MainActor @Observable
public final class ConversationState {
    /// A tool call shown in the conversation: what was asked and, once known, the result.
    public struct ToolCallCard: Sendable, Hashable {
        /// Where the call stands.
        public enum Status: Sendable, Hashable {
            /// The tool is running.
            case executing
            /// The tool returned an output without an `error` key.
            case success
            /// The tool returned an object with an `error` key.
            case failure
        }

        /// The call's ID.
        public var toolCallId: String
        /// The tool's name.
        public var toolName: String
        /// What the agent passed to the tool.
        public var input: JSONValue
        /// What the tool returned; nil while it runs.
        public var output: JSONValue?
        /// Where the call stands.
        public var status: Status

        /// A card.
        public init(
            toolCallId: String, toolName: String, input: JSONValue, output: JSONValue? = nil,
            status: Status = .executing
        ) {
            self.toolCallId = toolCallId
            self.toolName = toolName
            self.input = input
            self.output = output
            self.status = status
        }

        /// ``Status/failure`` for an object with an `error` key, ``Status/success`` otherwise.
        static func status(for output: JSONValue) -> Status {
            output["error"] == nil ? .success : .failure
        }
    }

    /// One row of the conversation: a text bubble or a tool card.
    public struct UiMessage: Identifiable, Sendable, Hashable {
        /// What the row shows.
        public enum Kind: Sendable, Hashable {
            /// A text bubble.
            case text(String)
            /// A tool call.
            case toolCall(ToolCallCard)
        }

        /// Where a user's message stands on its way to the server: exactly one at a time
        /// (the "Delivery" article draws the transitions). ChatStream's own.
        public enum Delivery: String, Sendable, Hashable {
            /// Waiting in the client's outbox: it will be sent by itself (same `clientMessageId`).
            case pending
            /// On its way now.
            case sending
            /// The server has it.
            case sent
            /// Not sent, and it will not be sent by itself: it waits for the user
            /// (``ConversationState/resend(rowId:)`` or discard). ``UiMessage/isError`` is true.
            case failed
        }

        /// The row's own ID (stable while it streams).
        public var id: String
        /// The server's ID of the message the row belongs to; nil until the server gave one.
        public var messageId: String?
        /// What the row shows.
        public var kind: Kind
        /// Who wrote it.
        public var sender: MessageSender
        /// When it was written.
        public var date: Date
        /// Whether text is still streaming into it.
        public var isStreaming: Bool
        /// Where a user's message stands (nil on the agent's rows).
        public var delivery: Delivery?
        /// Whether an agent row's reply did not finish.
        private var replyFailed: Bool
        /// Whether it failed: a reply that did not finish, or a user message that will not be sent
        /// by itself (``Delivery/failed``).
        public var isError: Bool {
            get { delivery == .failed || replyFailed }
            set {
                if sender == .user {
                    if newValue { delivery = .failed } else if delivery == .failed { delivery = .sent }
                } else {
                    replyFailed = newValue
                }
            }
        }
        /// Whether it is a user message waiting in the client's outbox, to be sent by itself when the
        /// server can be reached (``Delivery/pending``). ChatStream's own.
        public var isPending: Bool {
            get { delivery == .pending }
            set {
                if newValue { delivery = .pending } else if delivery == .pending { delivery = .sent }
            }
        }
        /// The user's feedback on the message.
        public var feedback: MessageFeedback?

        /// A row; a user's row is ``Delivery/sent`` unless `delivery`, `isError` or `isPending` say otherwise.
        public init(
            id: String, messageId: String? = nil, kind: Kind, sender: MessageSender, date: Date = .now,
            isStreaming: Bool = false, isError: Bool = false, feedback: MessageFeedback? = nil,
            isPending: Bool = false, delivery: Delivery? = nil
        ) {
            self.id = id
            self.messageId = messageId
            self.kind = kind
            self.sender = sender
            self.date = date
            self.isStreaming = isStreaming
            self.feedback = feedback
            self.replyFailed = sender != .user && isError
            if sender == .user {
                self.delivery = delivery ?? (isError ? .failed : isPending ? .pending : .sent)
            } else {
                self.delivery = nil
            }
        }
    }

    /// The rows, oldest first.
    public internal(set) var messages: [UiMessage] = []
    /// Whether a send or retry is in progress.
    public private(set) var isSending = false
    /// Whether a history page is loading.
    public internal(set) var isLoadingHistory = false
    /// Whether older history remains to load.
    public internal(set) var hasMoreHistory = false
    /// The conversation (nil until the first reply assigns one).
    public internal(set) var conversationId: String?
    /// The last failure, cleared by the next action or ``clearError()``.
    public internal(set) var error: (any Error)?
    /// Called after each send or retry that completes, with the finished response. Use it to
    /// keep a ``ConversationListState`` current without a refetch. ChatStream's own.
    ///
    /// ```swift
    /// chat.onReply = { [weak list] response in list?.apply(response) }
    /// ```
    public var onReply: (@MainActor (ChatResponse) -> Void)?

    /// The client doing the work.
    public let client: ChatbaseClient

    /// Who is typing in this conversation now (the agent, a human agent), while following the live
    /// stream (``startLive(options:)``).
    public internal(set) var typingParticipants: Set<ParticipantRole> = []
    /// The conversation's status as last heard from the live stream; nil until one was heard.
    public internal(set) var status: ConversationStatus?
    /// Whether the state follows the live stream.
    public internal(set) var isLive = false
    /// Where the state's live subscription stands (``LiveConnectionState/stopped`` when not following).
    public internal(set) var liveState: LiveConnectionState = .stopped
    @ObservationIgnored var liveTask: Task<Void, Never>?
    /// How many main-actor turns applied streamed updates (for tests and figures).
    @ObservationIgnored package internal(set) var deliveryTurns = 0
    /// The reply's updates on their way to the main actor (see StreamedUpdates).
    nonisolated let streamedUpdates = StreamedUpdates()
    /// Live messages that arrived while a send was running, shown once it ended (those the send
    /// itself showed are dropped by their IDs).
    @ObservationIgnored var deferredLiveMessages: [Message] = []
    /// Whether a live `reset` came while a send ran: history is reloaded once it ended.
    @ObservationIgnored var reloadsAfterSend = false

    @ObservationIgnored var historyPage: PaginatedResponse<Message>?
    @ObservationIgnored private var streamingRowId: String?
    @ObservationIgnored private var userRowId: String?
    /// Where the rows of the send or retry in progress begin.
    @ObservationIgnored private var turnStart = 0
    /// The `clientMessageId` of the message being sent.
    @ObservationIgnored private var pendingClientMessageId: String?
    /// The `clientMessageId` of each user row this state sent (row ID to it): every resend reuses it.
    @ObservationIgnored var sentRows: [String: String] = [:]
    /// Whether ``conversationId`` was made here for a queued message (the server may answer another).
    @ObservationIgnored private var madeConversationId = false
    @ObservationIgnored private var outboxSubscription: OutboxSubscription?
    /// The send or retry in progress (``stop()`` cancels it when the server cannot stop the reply).
    @ObservationIgnored private var sendTask: Task<ChatResponse, any Error>?
    /// The streaming reply's conversation and message IDs, once its stream named them.
    @ObservationIgnored var streamingReply: (conversationId: String, messageId: String)?
    /// Whether ``stop()`` ended the send in progress.
    @ObservationIgnored private var stopped = false

    /// What happens to a message the server could not be reached for: this state's choice, or nil
    /// for the client's ``ChatbaseClient/outboxPolicy``. With an outbox, an unsent message's row is
    /// ``UiMessage/Delivery/pending`` and settles as sent, with its reply, when the outbox
    /// delivers it (or failed when the server refuses it). ChatStream's own.
    public let outbox: OutboxPolicy?

    /// State for `conversationId` (nil: a new conversation begins with the first send).
    ///
    /// - Parameters:
    ///   - client: the client the state sends and reads history with.
    ///   - conversationId: the conversation shown (nil: a new conversation begins with the first send).
    ///   - outbox: overrides the client's ``ChatbaseClient/outboxPolicy`` for this state's sends
    ///     (nil: the client's; the outbox needs the client's ``ChatbaseClient/store``).
    public init(client: ChatbaseClient, conversationId: String? = nil, outbox: OutboxPolicy? = nil) {
        self.client = client
        self.conversationId = conversationId
        self.outbox = outbox
        if (outbox ?? client.outboxPolicy) != .off {
            outboxSubscription = OutboxSubscription(client: client) { [weak self] event in
                Task { @MainActor [weak self] in self?.settle(event) }
            }
        }
    }

    /// The outbox policy this state's sends go under.
    var effectiveOutbox: OutboxPolicy { client.store == nil ? .off : outbox ?? client.outboxPolicy }

    /// Continues conversation `id` from now on (nil: the next send starts a new one).
    public func setConversationId(_ id: String?) { conversationId = id }

    /// Forgets ``error``.
    public func clearError() { error = nil }

    /// Empties the conversation: no rows, no conversation, no history, no error.
    public func clear() {
        messages = []
        conversationId = nil
        historyPage = nil
        hasMoreHistory = false
        error = nil
        streamingRowId = nil
        userRowId = nil
    }

    // MARK: Sending

    /// Shows `text` as the user's message, streams the reply into a new bubble (tool cards for
    /// its tool calls), and stamps the server's IDs when it finishes. Never throws: a failure is
    /// ``error``, the reply's bubble is marked ``UiMessage/isError``, and so is the user's message
    /// when the server never took it. Empty or blank text, and a call while ``isSending``, do
    /// nothing. With the client's store, a message the server could not be reached for waits in
    /// the outbox: its row is ``UiMessage/isPending`` instead (and ``error`` says why).
    public func sendMessage(_ text: String) async {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !isSending else { return }
        let userRow = UiMessage(id: Self.localId(), kind: .text(trimmed), sender: .user, delivery: .sending)
        turnStart = messages.count
        messages.append(userRow)
        await send(row: userRow.id, text: trimmed, clientMessageId: ChatbaseClient.newClientMessageId())
    }

    /// Sends a user row that failed again, with the same `clientMessageId` (the server stores it
    /// once however often it arrives): it goes back to ``UiMessage/Delivery/sending``, and the
    /// empty failed reply row after it goes. Does nothing while ``isSending`` or for a row that
    /// is not a failed message of the user. ChatStream's own.
    public func resend(rowId: String) async {
        guard !isSending, let index = messages.firstIndex(where: { $0.id == rowId }),
            messages[index].delivery == .failed, case .text(let text) = messages[index].kind
        else { return }
        let clientMessageId =
            sentRows[rowId]
            ?? (rowId.hasPrefix("outbox-") ? String(rowId.dropFirst(7)) : ChatbaseClient.newClientMessageId())
        messages[index].delivery = .sending
        if index + 1 < messages.count, messages[index + 1].sender == .agent, messages[index + 1].isError,
            case .text(let reply) = messages[index + 1].kind, reply.isEmpty
        {
            messages.remove(at: index + 1)
        }
        turnStart = index
        await send(row: rowId, text: text, clientMessageId: clientMessageId)
    }

    private func send(row: String, text: String, clientMessageId: String) async {
        userRowId = row
        sentRows[row] = clientMessageId
        let policy = effectiveOutbox
        if policy != .off, conversationId == nil {
            // Queued messages go into the conversation they were written in: a new one gets its ID now.
            conversationId = ChatbaseClient.newClientMessageId()
            madeConversationId = true
        }
        pendingClientMessageId = clientMessageId
        defer { pendingClientMessageId = nil }
        await run { [client, conversationId, callbacks = streamCallbacks()] in
            try await client.send(
                text, conversationId: conversationId, clientMessageId: clientMessageId, outbox: policy,
                configure: callbacks)
        }
    }

    /// Asks the agent to answer again from the message whose server ID is `messageId` (an agent
    /// message): that row and every row after it go, and the new reply streams in. Does nothing
    /// while ``isSending``, without a conversation, or when no row has that ID. When the retry
    /// fails before the server named the new reply (its answer was lost), the newest page of
    /// history is loaded, so the rows show whichever reply the server kept.
    public func retry(messageId: String) async {
        guard !isSending, let conversationId, let index = messages.firstIndex(where: { $0.messageId == messageId })
        else { return }
        messages.removeSubrange(index...)
        userRowId = nil
        turnStart = messages.count
        await run { [client, callbacks = streamCallbacks()] in
            try await client.retry(conversationId: conversationId, messageId: messageId, configure: callbacks)
        }
    }

    private func run(_ body: @escaping @Sendable () async throws -> ChatResponse) async {
        error = nil
        isSending = true
        stopped = false
        streamingReply = nil
        defer {
            isSending = false
            streamingRowId = nil
            userRowId = nil
            sendTask = nil
            streamingReply = nil
            showDeferredLiveMessages()
        }
        startStreamingRow()
        let task = Task { try await body() }
        sendTask = task
        do {
            let response = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            applyStreamedUpdates()
            finish(response)
            onReply?(response)
        } catch {
            applyStreamedUpdates()
            if stopped, error is CancellationError {
                endStoppedReply()
            } else {
                fail(error)
            }
        }
        if reloadsAfterSend, let conversationId {
            reloadsAfterSend = false
            let failure = error
            await loadHistory(conversationId: conversationId)
            // The send's own failure is the one the app shows.
            if let failure { error = failure }
        }
    }

    /// Stops the reply being streamed (the AI SDK's `stop()`): the server stops generating and
    /// keeps the text so far (``ChatbaseClient/stopReply(conversationId:messageId:)``), and the
    /// reply's row keeps it too, not marked failed. Against a server without the route (or before
    /// the stream named the reply) the send is cancelled instead, with the same rows. Does nothing
    /// when no send or retry is in progress. ChatStream's own.
    public func stop() async {
        guard isSending, let task = sendTask else { return }
        if let reply = streamingReply,
            (try? await client.stopReply(conversationId: reply.conversationId, messageId: reply.messageId)) != nil
        {
            return  // the stream ends by itself with the partial reply
        }
        guard sendTask == task else { return }
        stopped = true
        task.cancel()
    }

    /// The rows after a send cancelled by ``stop()``: the user's message stays as it stands, the
    /// reply's row keeps its text (dropped when empty) and stops streaming.
    private func endStoppedReply() {
        if let reply = streamingReply, let index = streamingIndex, messages[index].messageId == nil {
            messages[index].messageId = reply.messageId
        }
        endStreamingRow()
        if let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }),
            messages[index].delivery == .sending
        {
            messages[index].delivery = streamingReply == nil ? .failed : .sent
        }
    }

    private nonisolated func streamCallbacks() -> @Sendable (inout StreamCallbacks) -> Void {
        // Updates are queued without waiting for the main actor; the first into an empty queue
        // schedules the one turn that applies all queued by then.
        let updates = streamedUpdates
        return { [weak self] callbacks in
            let deliver: @Sendable (StreamedUpdates.Update) -> Void = { [weak self] update in
                guard updates.add(update) else { return }
                Task { @MainActor [weak self] in self?.applyStreamedUpdates() }
            }
            callbacks.onTextDelta = { delta in deliver(.text(delta)) }
            callbacks.onToolCall = { info in deliver(.toolCall(info)) }
            callbacks.onToolResult = { info in deliver(.toolResult(info)) }
            callbacks.onReplyNamed = { [weak self] conversationId, messageId in
                await self?.noteStreamingReply(conversationId: conversationId, messageId: messageId)
            }
            _ = self
        }
    }

    private func noteStreamingReply(conversationId: String, messageId: String) {
        streamingReply = (conversationId, messageId)
    }

    private func startStreamingRow() {
        let row = UiMessage(id: Self.localId(), kind: .text(""), sender: .agent, isStreaming: true)
        messages.append(row)
        streamingRowId = row.id
    }

    private var streamingIndex: Int? {
        streamingRowId.flatMap { id in messages.firstIndex { $0.id == id } }
    }

    /// Appends to the streaming bubble in place: the row's text is taken out first, so the append
    /// costs the delta, not the text so far.
    private func append(_ delta: String) {
        guard let index = streamingIndex, case .text(var text) = messages[index].kind else { return }
        messages[index].kind = .text("")
        text += delta
        messages[index].kind = .text(text)
    }

    /// Applies every streamed update queued so far, in order, in this one main-actor turn.
    func applyStreamedUpdates() {
        let updates = streamedUpdates.take()
        guard !updates.isEmpty else { return }
        deliveryTurns += 1
        // Consecutive deltas are joined and appended once; a call or result ends the run.
        var text = ""
        func flushText() {
            if !text.isEmpty { append(text) }
            text = ""
        }
        for update in updates {
            switch update {
            case .text(let delta): text += delta
            case .toolCall(let info):
                flushText()
                show(info)
            case .toolResult(let info):
                flushText()
                show(info)
            }
        }
        flushText()
    }

    /// Ends the streaming bubble (dropping it when empty) and shows the call's card.
    private func show(_ call: ToolCallInfo) {
        endStreamingRow()
        guard !messages.contains(where: { $0.id == call.toolCallId }) else { return }
        let card = ToolCallCard(toolCallId: call.toolCallId, toolName: call.toolName, input: call.input)
        messages.append(UiMessage(id: call.toolCallId, kind: .toolCall(card), sender: .agent))
    }

    /// Completes the call's card; the text after it streams into a new bubble.
    private func show(_ result: ToolResultInfo) {
        if let index = messages.firstIndex(where: { $0.id == result.toolCallId }),
            case .toolCall(var card) = messages[index].kind
        {
            card.output = result.output
            card.status = ToolCallCard.status(for: result.output)
            messages[index].kind = .toolCall(card)
        }
        endStreamingRow()
        startStreamingRow()
    }

    private func endStreamingRow() {
        guard let index = streamingIndex else { return }
        if case .text(let text) = messages[index].kind, text.isEmpty {
            messages.remove(at: index)
        } else {
            messages[index].isStreaming = false
        }
        streamingRowId = nil
    }

    private func finish(_ response: ChatResponse) {
        if let index = streamingIndex {
            messages[index].messageId = response.message.id
        }
        endStreamingRow()
        if let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }) {
            messages[index].delivery = .sent
            if let userMessageId = response.userMessageId { messages[index].messageId = userMessageId }
        }
        for index in messages.indices.dropFirst(turnStart)
        where messages[index].sender == .agent && messages[index].messageId == nil {
            messages[index].messageId = response.message.id
        }
        if conversationId == nil || madeConversationId {
            conversationId = response.conversationId
            madeConversationId = false
        }
    }

    /// The reply's bubble is marked failed (kept with what arrived, even when empty); the user's
    /// message too when the server never took it (no reply began), so no unsent message reads
    /// as sent.
    private func fail(_ failure: any Error) {
        error = failure
        let partial = (failure as? APIError)?.replyStreamError?.partialMessage
        let replyBegan = partial != nil
        if let index = streamingIndex {
            messages[index].isStreaming = false
            messages[index].isError = true
            // The reply's ID, when the stream announced it, so `retry(messageId:)` can regenerate it.
            if messages[index].messageId == nil { messages[index].messageId = partial?.id }
            // A retry whose answer was lost before it named the new reply: the server may have
            // replaced the reply or not, so the conversation is read again once the retry ended.
            if userRowId == nil, messages[index].messageId == nil { reloadsAfterSend = true }
        }
        if replyBegan, let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }) {
            messages[index].delivery = .sent
            if messages[index].messageId == nil { messages[index].messageId = partial?.userMessageId }
        }
        if !replyBegan, let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }) {
            if let clientMessageId = pendingClientMessageId,
                (try? client.outbox())?.contains(where: {
                    $0.clientMessageId == clientMessageId && $0.state == .pending
                })
                    == true
            {
                // Queued: the user's row waits; no reply row until it is sent.
                messages[index].delivery = .pending
                if let streaming = streamingIndex ?? messages.indices.last(where: { messages[$0].sender == .agent }),
                    streaming > index, case .text(let text) = messages[streaming].kind, text.isEmpty
                {
                    messages.remove(at: streaming)
                }
            } else {
                messages[index].delivery = .failed
            }
        }
        if replyBegan, conversationId == nil, let id = client.currentConversationId { conversationId = id }
    }

    private static func localId() -> String { "local-" + ChatStreamPaths.newDeviceId() }
}
