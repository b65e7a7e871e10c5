// ConversationEvent: the typed model of a live conversation stream.
//
// Two wire formats decode into it: the home server's `/agents/{id}/events` stream (PROTOCOLS.md
// section 6) and Salesforce's in-app messaging event router (section 7). It is not a
// StreamEvent: a StreamEvent is a piece of one reply, a ConversationEvent is a change to the
// caller's conversations.

import ChatStream

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
        /// A piece of a message's text as it is generated (Salesforce: a streaming token): append
        /// it to the draft of ``MessageDelta/messageId``, in ``MessageDelta/sequenceNumber`` order.
        /// The finished message follows as `messageCreated` with the same ID and the whole
        /// text (``LiveMessageContent/completesStream``): it replaces the draft. ``LiveMessageDrafts``
        /// does this bookkeeping.
        case messageDelta(conversationId: String, delta: MessageDelta)
        /// The server's verdict on a streamed message's text: when not valid, drop the draft.
        case messageStreamValidated(conversationId: String, validation: StreamValidation)
        /// A participant started (`active`) or stopped typing.
        case typing(conversationId: String, participant: ParticipantRole, active: Bool)
        /// Participants joined, left or changed (one ``ParticipantChange`` each).
        case participantChanged(conversationId: String, changes: [ParticipantChange])
        /// The conversation was routed (to a bot, a queue, a human agent), or routing failed.
        case routingResult(conversationId: String, result: RoutingResult)
        /// Routed work changed state: assigned to a rep, accepted by one (the rep is about to
        /// join), or closed.
        case routingWorkResult(conversationId: String, result: RoutingWorkResult)
        /// The caller's position in the queue for a human agent (1 is next).
        case queuePosition(conversationId: String, position: Int)
        /// What an agent is doing before it answers ("Calling agent action..."): show it until the
        /// next message.
        case progress(conversationId: String, status: ProgressStatus)
        /// A client action or client menu the server sent (Salesforce), kept whole.
        case clientAction(conversationId: String, action: ClientAction)
        /// A message was delivered to, or read by, the other side.
        case acknowledged(conversationId: String, acknowledgement: Acknowledgement)
        /// The conversation was closed.
        case conversationClosed(conversationId: String)
        /// The messaging session's status changed (for example to `Ended`).
        case sessionStatusChanged(conversationId: String, status: String)
        /// The server cannot resume after the given ID: refetch what you show, then events continue.
        case reset
        /// The subscription is established: the event's ID is the caller's position when it began
        /// (the home protocol's `subscribed`, sent before any change; resume after it).
        case subscribed
    }

    /// The conversation the event is about; `nil` for ``Kind/reset``.
    public var conversationId: String? {
        switch kind {
        case .conversationCreated(let conversation), .conversationUpdated(let conversation): conversation.id
        case .messageCreated(let message): message.conversationId
        case .typing(let id, _, _), .participantChanged(let id, _), .routingResult(let id, _),
            .acknowledged(let id, _), .conversationClosed(let id), .sessionStatusChanged(let id, _),
            .messageDelta(let id, _), .messageStreamValidated(let id, _), .routingWorkResult(let id, _),
            .queuePosition(let id, _), .progress(let id, _), .clientAction(let id, _):
            id
        case .reset, .subscribed: nil
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

/// One participant joining, leaving or changing.
public struct ParticipantChange: Sendable, Hashable {
    /// What happened to the participant.
    public enum Operation: Sendable, Hashable, CustomStringConvertible {
        /// The participant joined (Salesforce: `add`).
        case added
        /// The participant left (`remove`).
        case removed
        /// The participant's details changed, for example its role or name (`update`).
        case updated
        /// An operation this model has no name for, as the wire spelled it.
        case other(String)

        /// Reads Salesforce's spelling (`add`, `remove`, `update`, in any case).
        public init(wire raw: String) {
            switch raw.lowercased() {
            case "add": self = .added
            case "remove": self = .removed
            case "update": self = .updated
            default: self = .other(raw)
            }
        }

        /// The wire spelling: `add`, `remove`, `update`, or the raw value.
        public var description: String {
            switch self {
            case .added: "add"
            case .removed: "remove"
            case .updated: "update"
            case .other(let raw): raw
            }
        }
    }

    /// What happened to the participant.
    public var operation: Operation
    /// The participant's role.
    public var role: ParticipantRole
    /// The name shown for the participant, when given.
    public var displayName: String?

    /// Whether the participant joined (an update or a leave is not a join).
    public var joined: Bool { operation == .added }

    /// Makes a change.
    public init(operation: Operation, role: ParticipantRole, displayName: String? = nil) {
        self.operation = operation
        self.role = role
        self.displayName = displayName
    }

    /// Makes a join (`true`) or a leave.
    public init(joined: Bool, role: ParticipantRole, displayName: String? = nil) {
        self.init(operation: joined ? .added : .removed, role: role, displayName: displayName)
    }
}

/// The outcome of routing a conversation.
///
/// The queue position is not part of it: Salesforce sends it as its own event
/// (`ConversationEvent.Kind.queuePosition`).
public struct RoutingResult: Sendable, Hashable {
    /// The kind of routing (Salesforce: `Initial`, `Transfer`).
    public var routingType: String
    /// Why routing failed, when it did (Salesforce: `failureType` other than `None`).
    public var failure: String?
    /// The server's explanation of the failure, when it gave one (Salesforce: `failureReason`).
    public var failureReason: String?
    /// The estimated wait in seconds, only when the deployment asked for one and the server
    /// computed it (Salesforce: `isEWTRequested` true and a non-negative value).
    public var estimatedWaitSeconds: Double?

    /// Makes a result.
    public init(
        routingType: String, failure: String? = nil, failureReason: String? = nil, estimatedWaitSeconds: Double? = nil
    ) {
        self.routingType = routingType
        self.failure = failure
        self.failureReason = failureReason
        self.estimatedWaitSeconds = estimatedWaitSeconds
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
