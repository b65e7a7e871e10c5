// ConversationState: observable state for one chat screen, in the shape the Chatbase SDK
// documents: the main actor owns it, the client does the work. This file holds the class, what
// it stores and its small API; the rest is split by what it does:
// - ConversationState+Rows: a row (text bubble or tool card) and where a user's message stands;
// - ConversationState+Sending: send, resend, retry and stop, and how a turn ends (sent or failed);
// - ConversationState+Streaming: the reply streaming into its bubble and the tool cards;
// - ConversationState+History, +Live, +Outbox, +Resume: history pages, the live stream, the
//   outbox's deliveries, and resuming after a relaunch.

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
    /// The rows, oldest first.
    public internal(set) var messages: [UiMessage] = []
    /// Whether a send or retry is in progress.
    public internal(set) var isSending = false
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
    /// Whether the rows may differ from the server's: a live `reset` came while a send ran, a
    /// retry's answer was lost, or the server's page could not be read when history was loaded.
    /// The newest page is read again at the next chance: when the send in progress ends, at the
    /// next live event, or when the live stream is live again after a reconnection.
    @ObservationIgnored var owesReload = false
    /// Whether a live message was shown at the end of the rows, where the server may not have it
    /// (ConversationState+Converge): the newest page is read and merged at the next chance.
    @ObservationIgnored var owesMerge = false

    @ObservationIgnored var historyPage: PaginatedResponse<Message>?
    @ObservationIgnored var streamingRowId: String?
    @ObservationIgnored var userRowId: String?
    /// Where the rows of the send or retry in progress begin.
    @ObservationIgnored var turnStart = 0
    /// The `clientMessageId` of the message being sent.
    @ObservationIgnored var pendingClientMessageId: String?
    /// The `clientMessageId` of each user row this state sent (row ID to it): every resend reuses it.
    @ObservationIgnored var sentRows: [String: String] = [:]
    /// Whether ``conversationId`` was made here for a queued message (the server may answer another).
    @ObservationIgnored var madeConversationId = false
    @ObservationIgnored var outboxSubscription: OutboxSubscription?
    /// The send or retry in progress (``stop()`` cancels it when the server cannot stop the reply).
    @ObservationIgnored var sendTask: Task<ChatResponse, any Error>?
    /// The streaming reply's conversation and message IDs, once its stream named them.
    @ObservationIgnored var streamingReply: (conversationId: String, messageId: String)?
    /// Whether ``stop()`` ended the send in progress.
    @ObservationIgnored var stopped = false

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

    /// A new row ID of this device.
    static func localId() -> String { "local-" + ChatStreamPaths.newDeviceId() }
}
