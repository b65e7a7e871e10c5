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
        /// Whether it failed: a reply that did not finish, or a user message the server did not take.
        public var isError: Bool
        /// Whether it is a user message waiting in the client's outbox, to be sent when the server
        /// can be reached (``ChatbaseClient/flushOutbox()``). ChatStream's own.
        public var isPending: Bool
        /// The user's feedback on the message.
        public var feedback: MessageFeedback?

        /// A row.
        public init(
            id: String, messageId: String? = nil, kind: Kind, sender: MessageSender, date: Date = .now,
            isStreaming: Bool = false, isError: Bool = false, feedback: MessageFeedback? = nil,
            isPending: Bool = false
        ) {
            self.id = id
            self.messageId = messageId
            self.kind = kind
            self.sender = sender
            self.date = date
            self.isStreaming = isStreaming
            self.isError = isError
            self.feedback = feedback
            self.isPending = isPending
        }
    }

    /// The rows, oldest first.
    public internal(set) var messages: [UiMessage] = []
    /// Whether a send or retry is in progress.
    public private(set) var isSending = false
    /// Whether a history page is loading.
    public private(set) var isLoadingHistory = false
    /// Whether older history remains to load.
    public private(set) var hasMoreHistory = false
    /// The conversation (nil until the first reply assigns one).
    public private(set) var conversationId: String?
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
    @ObservationIgnored var liveTask: Task<Void, Never>?
    /// How many main-actor turns applied streamed updates (for tests and figures).
    @ObservationIgnored var deliveryTurns = 0
    /// The reply's updates on their way to the main actor (see StreamedUpdates).
    nonisolated let streamedUpdates = StreamedUpdates()
    /// Live messages that arrived while a send was running, shown once it ended (those the send
    /// itself showed are dropped by their IDs).
    @ObservationIgnored var deferredLiveMessages: [Message] = []

    @ObservationIgnored private var historyPage: PaginatedResponse<Message>?
    @ObservationIgnored private var streamingRowId: String?
    @ObservationIgnored private var userRowId: String?
    /// Where the rows of the send or retry in progress begin.
    @ObservationIgnored private var turnStart = 0
    /// The `clientMessageId` of the message being sent.
    @ObservationIgnored private var pendingClientMessageId: String?
    /// The rows shown as pending (row ID to `clientMessageId`).
    @ObservationIgnored private var pendingRows: [String: String] = [:]

    /// State for `conversationId` (nil: a new conversation begins with the first send).
    public init(client: ChatbaseClient, conversationId: String? = nil) {
        self.client = client
        self.conversationId = conversationId
    }

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
        let userRow = UiMessage(id: Self.localId(), kind: .text(trimmed), sender: .user)
        turnStart = messages.count
        messages.append(userRow)
        userRowId = userRow.id
        let clientMessageId = ChatbaseClient.newClientMessageId()
        pendingClientMessageId = clientMessageId
        defer { pendingClientMessageId = nil }
        await run { [client, conversationId, callbacks = streamCallbacks()] in
            try await client.send(
                trimmed, conversationId: conversationId, clientMessageId: clientMessageId, configure: callbacks)
        }
    }

    /// Asks the agent to answer again from the message whose server ID is `messageId` (an agent
    /// message): that row and every row after it go, and the new reply streams in. Does nothing
    /// while ``isSending``, without a conversation, or when no row has that ID.
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

    private func run(_ body: @Sendable () async throws -> ChatResponse) async {
        error = nil
        isSending = true
        defer {
            isSending = false
            streamingRowId = nil
            userRowId = nil
            showDeferredLiveMessages()
        }
        startStreamingRow()
        do {
            let response = try await body()
            applyStreamedUpdates()
            finish(response)
            onReply?(response)
        } catch {
            applyStreamedUpdates()
            fail(error)
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
            _ = self
        }
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
        if let userMessageId = response.userMessageId, let id = userRowId,
            let index = messages.firstIndex(where: { $0.id == id })
        {
            messages[index].messageId = userMessageId
        }
        for index in messages.indices.dropFirst(turnStart)
        where messages[index].sender == .agent && messages[index].messageId == nil {
            messages[index].messageId = response.message.id
        }
        if conversationId == nil { conversationId = response.conversationId }
    }

    /// The reply's bubble is marked failed (kept with what arrived, even when empty); the user's
    /// message too when the server never took it (no reply began), so no unsent message reads
    /// as sent.
    private func fail(_ failure: any Error) {
        error = failure
        let replyBegan = (failure as? APIError)?.replyStreamError != nil
        if let index = streamingIndex {
            messages[index].isStreaming = false
            messages[index].isError = true
        }
        if !replyBegan, let id = userRowId, let index = messages.firstIndex(where: { $0.id == id }) {
            if let clientMessageId = pendingClientMessageId,
                (try? client.outbox())?.contains(where: {
                    $0.clientMessageId == clientMessageId && $0.state == .pending
                })
                    == true
            {
                // Queued: the user's row waits; no reply row until it is sent.
                messages[index].isPending = true
                pendingRows[id] = clientMessageId
                if let streaming = streamingIndex ?? messages.indices.last(where: { messages[$0].sender == .agent }),
                    streaming > index, case .text(let text) = messages[streaming].kind, text.isEmpty
                {
                    messages.remove(at: streaming)
                }
            } else {
                messages[index].isError = true
            }
        }
        if replyBegan, conversationId == nil, let id = client.currentConversationId { conversationId = id }
    }

    private static func localId() -> String { "local-" + ChatStreamPaths.newDeviceId() }

    // MARK: History

    /// Loads the newest page of conversation `conversationId`, replacing the rows, and continues
    /// that conversation from now on. With the client's ``ChatbaseClient/store`` the cached page
    /// shows at once and the server's replaces it (``HistorySource/localThenNetwork``); when the
    /// server cannot be reached the cached rows stay, with ``error`` set.
    public func loadHistory(conversationId: String, limit: Int = 20) async {
        guard !isLoadingHistory else { return }
        isLoadingHistory = true
        defer { isLoadingHistory = false }
        // Local then network: the cached page at once, replaced by the server's.
        if client.store != nil,
            let cached = try? await client.listMessages(conversationId: conversationId, limit: limit, source: .local),
            !cached.data.isEmpty
        {
            messages = cached.data.flatMap(Self.rows(for:)) + outboxRows(conversationId)
            self.conversationId = conversationId
            historyPage = cached
            hasMoreHistory = cached.hasMore
        }
        do {
            let page = try await client.listMessages(conversationId: conversationId, limit: limit)
            messages = page.data.flatMap(Self.rows(for:)) + outboxRows(conversationId)
            self.conversationId = conversationId
            historyPage = page
            hasMoreHistory = page.hasMore
        } catch {
            self.error = error
        }
    }

    /// Loads the next older page in front of the rows; does nothing when there is none.
    public func loadMoreHistory() async {
        guard let page = historyPage, page.hasMore, !isLoadingHistory else { return }
        isLoadingHistory = true
        defer { isLoadingHistory = false }
        do {
            guard let next = try await page.loadMore() else {
                hasMoreHistory = false
                return
            }
            let shown = Set(messages.compactMap(\.messageId))
            messages.insert(contentsOf: next.data.filter { !shown.contains($0.id) }.flatMap(Self.rows(for:)), at: 0)
            historyPage = next
            hasMoreHistory = next.hasMore
        } catch {
            self.error = error
        }
    }

    /// Sends the client's outbox (``ChatbaseClient/flushOutbox()``); when a message of this
    /// conversation, or one this state showed as pending, was delivered, reloads the conversation's
    /// newest page so its rows show the reply. ChatStream's own.
    public func flushOutbox() async {
        error = nil
        do {
            let flush = try await client.flushOutbox()
            let shown = Set(pendingRows.values)
            guard
                let delivered = flush.delivered.last(where: {
                    $0.response.conversationId == conversationId || shown.contains($0.message.clientMessageId)
                })
            else { return }
            pendingRows = pendingRows.filter { entry in
                !flush.delivered.contains { $0.message.clientMessageId == entry.value }
            }
            await loadHistory(conversationId: delivered.response.conversationId)
        } catch {
            self.error = error
        }
    }

    /// The outbox's messages to `conversationId` as user rows, pending or failed.
    private func outboxRows(_ conversationId: String) -> [UiMessage] {
        ((try? client.outbox()) ?? []).filter { $0.conversationId == conversationId }.map { queued in
            UiMessage(
                id: "outbox-" + queued.clientMessageId, kind: .text(queued.text), sender: .user, date: queued.createdAt,
                isError: queued.state == .failed, isPending: queued.state == .pending)
        }
    }

    /// A history message as rows: a bubble per text part, a card per tool call (completed by its
    /// result); a message with text but no such parts is one bubble.
    static func rows(for message: Message) -> [UiMessage] {
        var rows: [UiMessage] = []
        for part in message.parts {
            switch part {
            case .text(let text) where !text.isEmpty:
                rows.append(
                    UiMessage(
                        id: "\(message.id)#\(rows.count)", messageId: message.id, kind: .text(text),
                        sender: message.sender, date: message.date, feedback: message.feedback))
            case .text: break
            case .toolCall(let id, let name, let input):
                rows.append(
                    UiMessage(
                        id: id, messageId: message.id,
                        kind: .toolCall(ToolCallCard(toolCallId: id, toolName: name, input: input)),
                        sender: .agent, date: message.date))
            case .toolResult(let id, _, let output):
                if let index = rows.lastIndex(where: { $0.id == id }), case .toolCall(var card) = rows[index].kind {
                    card.output = output
                    card.status = ToolCallCard.status(for: output)
                    rows[index].kind = .toolCall(card)
                }
            }
        }
        if rows.isEmpty, !message.text.isEmpty {
            rows.append(
                UiMessage(
                    id: message.id, messageId: message.id, kind: .text(message.text), sender: message.sender,
                    date: message.date, feedback: message.feedback))
        }
        return rows
    }
}
