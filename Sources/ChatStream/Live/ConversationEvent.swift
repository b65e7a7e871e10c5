// ConversationEvent: the typed model of a live conversation stream.
//
// Two wire formats decode into it: the home server's `/agents/{id}/events` stream (PROTOCOLS.md
// section 6) and Salesforce's in-app messaging event router (section 7). It is not a
// StreamEvent: a StreamEvent is a piece of one reply, a ConversationEvent is a change to the
// caller's conversations.

/// One event of a live conversation stream: what changed, and the ID to resume after.
///
/// ```swift
/// var decoder = ConversationEventDecoder(format: .home)
/// for event in try decoder.feed(bytes) {
///     if case .messageCreated(let message) = event.kind { print(message.text) }
/// }
/// ```
public struct ConversationEvent: Sendable, Hashable {
    /// The event's ID (the SSE last event ID at dispatch): send it as `Last-Event-ID` to resume.
    public var id: String?
    /// What happened.
    public var kind: Kind

    /// Makes an event.
    public init(id: String? = nil, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    /// What a live event says happened.
    public enum Kind: Sendable, Hashable {
        /// A conversation of the caller was created (on any device).
        case conversationCreated(LiveConversation)
        /// A conversation's status, title, tags, unread count or update time changed.
        case conversationUpdated(LiveConversation)
        /// A message was stored: the caller's own, an agent's finished reply, a human agent's message.
        case messageCreated(LiveMessage)
        /// A participant started (`active`) or stopped typing.
        case typing(conversationId: String, participant: ParticipantRole, active: Bool)
        /// Participants joined or left.
        case participantChanged(conversationId: String, changes: [ParticipantChange])
        /// The conversation was routed (to a bot, a queue, a human agent), or routing failed.
        case routingResult(conversationId: String, result: RoutingResult)
        /// A message was delivered to, or read by, the other side.
        case acknowledged(conversationId: String, acknowledgement: Acknowledgement)
        /// The conversation was closed.
        case conversationClosed(conversationId: String)
        /// The messaging session's status changed (for example to `Ended`).
        case sessionStatusChanged(conversationId: String, status: String)
        /// The server cannot resume after the given ID: refetch what you show, then events continue.
        case reset
    }

    /// The conversation the event is about; `nil` for ``Kind/reset``.
    public var conversationId: String? {
        switch kind {
        case .conversationCreated(let conversation), .conversationUpdated(let conversation): conversation.id
        case .messageCreated(let message): message.conversationId
        case .typing(let id, _, _), .participantChanged(let id, _), .routingResult(let id, _),
            .acknowledged(let id, _), .conversationClosed(let id), .sessionStatusChanged(let id, _):
            id
        case .reset: nil
        }
    }
}

/// Who a live event is about, in the home protocol's terms.
public enum ParticipantRole: Sendable, Hashable, CustomStringConvertible {
    /// The end user (the caller).
    case user
    /// The AI agent (Salesforce: a chatbot).
    case agent
    /// A human agent (a dashboard operator; Salesforce: a rep).
    case humanAgent
    /// A role this model has no name for, as the wire spelled it.
    case other(String)

    /// The home protocol's spelling: `user`, `agent`, `human_agent`, or the raw value.
    public var description: String {
        switch self {
        case .user: "user"
        case .agent: "agent"
        case .humanAgent: "human_agent"
        case .other(let raw): raw
        }
    }

    /// Reads the home protocol's spelling (`agent`, `human_agent`, `user`; anything else is kept).
    public init(home raw: String) {
        switch raw {
        case "user": self = .user
        case "agent", "assistant": self = .agent
        case "human_agent": self = .humanAgent
        default: self = .other(raw)
        }
    }
}

/// One participant joining or leaving.
public struct ParticipantChange: Sendable, Hashable {
    /// Whether the participant joined (`true`) or left.
    public var joined: Bool
    /// The participant's role.
    public var role: ParticipantRole
    /// The name shown for the participant, when given.
    public var displayName: String?

    /// Makes a change.
    public init(joined: Bool, role: ParticipantRole, displayName: String? = nil) {
        self.joined = joined
        self.role = role
        self.displayName = displayName
    }
}

/// The outcome of routing a conversation.
public struct RoutingResult: Sendable, Hashable {
    /// The kind of routing (Salesforce: `Initial`, `Transfer`).
    public var routingType: String
    /// Why routing failed, when it did (Salesforce: `failureType` other than `None`).
    public var failure: String?
    /// The estimated wait in seconds, when the server gave one.
    public var estimatedWaitSeconds: Double?
    /// The position in the queue, when the server gave one.
    public var queuePosition: Int?

    /// Makes a result.
    public init(
        routingType: String, failure: String? = nil, estimatedWaitSeconds: Double? = nil, queuePosition: Int? = nil
    ) {
        self.routingType = routingType
        self.failure = failure
        self.estimatedWaitSeconds = estimatedWaitSeconds
        self.queuePosition = queuePosition
    }
}

/// A delivery or read receipt for one message.
public struct Acknowledgement: Sendable, Hashable {
    /// Delivered or read.
    public enum Kind: String, Sendable, Hashable {
        /// The message reached the other side.
        case delivered
        /// The other side read the message.
        case read
    }

    /// Delivered or read.
    public var kind: Kind
    /// The acknowledged message's ID.
    public var messageId: String
    /// When it was acknowledged, in seconds since 1970, when given.
    public var timestamp: Double?

    /// Makes an acknowledgement.
    public init(kind: Kind, messageId: String, timestamp: Double? = nil) {
        self.kind = kind
        self.messageId = messageId
        self.timestamp = timestamp
    }
}
