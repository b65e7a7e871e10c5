// LiveEvent: a live conversation event in the client's own types (Conversation, Message).

import ChatStream
import Foundation

/// One event of ``ChatbaseClient/events(since:options:)``, with conversations and messages in the
/// client's types.
///
/// ```swift
/// for try await event in client.events() {
///     switch event.kind {
///     case .conversationUpdated(let conversation): list.upsert(conversation)
///     case .messageCreated(let id, let message): open[id]?.append(message)
///     case .reset: try await list.refresh()
///     default: break
///     }
/// }
/// ```
public struct LiveEvent: Sendable, Hashable {
    /// The event's ID (what ``ChatbaseClient/events(since:options:)`` resumes after), when it has one.
    public var id: String?
    /// What happened.
    public var kind: Kind
    /// The event as decoded, in the core model (for the kinds this type does not name).
    public var event: ConversationEvent?

    /// Makes an event.
    public init(id: String?, kind: Kind, event: ConversationEvent? = nil) {
        self.id = id
        self.kind = kind
        self.event = event
    }

    /// What a live event says happened.
    public enum Kind: Sendable, Hashable {
        /// A conversation of the caller was created (on any of the user's devices).
        case conversationCreated(Conversation)
        /// A conversation's status, title, tags, unread count or update time changed.
        case conversationUpdated(Conversation)
        /// A message was stored in a conversation.
        case messageCreated(conversationId: String, message: Message)
        /// A participant started or stopped typing.
        case typing(conversationId: String, participant: ParticipantRole, active: Bool)
        /// Events may have been missed: refetch what you show.
        case reset
        /// The server has no live events route (reported once; then the sequence ends).
        case notSupportedByServer
        /// Another kind of event (a dialect's: participants, routing, receipts); see ``LiveEvent/event``.
        case other
    }

    /// The conversation the event is about, when there is one.
    public var conversationId: String? {
        switch kind {
        case .conversationCreated(let conversation), .conversationUpdated(let conversation): conversation.id
        case .messageCreated(let id, _), .typing(let id, _, _): id
        case .reset, .notSupportedByServer: nil
        case .other: event?.conversationId
        }
    }

    /// Whether this `message.created` carries only the message's preview (`"truncated": true`: the
    /// server sends a long message's start, not its body); fetch the history to show it whole.
    public var carriesPreviewOnly: Bool {
        guard case .messageCreated(let live)? = event?.kind else { return false }
        return live.json["truncated"] == .bool(true)
    }

    /// Maps a decoded event into the client's types; nil when its conversation or message
    /// cannot be read (a message with no parts, as history skips it).
    public init?(_ event: ConversationEvent) {
        let kind: Kind
        switch event.kind {
        case .conversationCreated(let live):
            guard let conversation = try? Conversation(live: live) else { return nil }
            kind = .conversationCreated(conversation)
        case .conversationUpdated(let live):
            guard let conversation = try? Conversation(live: live) else { return nil }
            kind = .conversationUpdated(conversation)
        case .messageCreated(let live):
            guard let message = try? Message(live: live) else { return nil }
            kind = .messageCreated(conversationId: live.conversationId, message: message)
        case .typing(let id, let participant, let active):
            kind = .typing(conversationId: id, participant: participant, active: active)
        case .reset:
            kind = .reset
        default:
            kind = .other
        }
        self.init(id: event.id, kind: kind, event: event)
    }
}

extension Conversation {
    /// A conversation from a live event's wire object.
    public init(live: LiveConversation) throws {
        self = try WireDecoding.decodeValue(live.json) { try WireDecoding.conversation($0) }
    }

    /// The conversation as it stands once `message` (a live `message.created`) is stored in it,
    /// without asking the server (CometChat's conversation from a message).
    ///
    /// ``lastMessage`` is `message`, ``updatedAt`` its date (unless later already), and an agent's
    /// message counts as unread (`previous`'s count plus one; nil without `previous`). Title,
    /// creation date, user, tags and status come from `previous`; without it (a conversation not
    /// yet shown) they are unknown: nil, the message's date, nil, nil, ``ConversationStatus/ongoing``.
    public init(conversationId: String, message: Message, previous: Conversation? = nil) {
        let same = previous?.id == conversationId ? previous : nil
        let unread = same?.unreadCount.map { $0 + (message.sender == .agent ? 1 : 0) }
        self.init(
            id: conversationId, title: same?.title, createdAt: same?.createdAt ?? message.date,
            updatedAt: max(same?.updatedAt ?? message.date, message.date), userId: same?.userId,
            status: same?.status ?? .ongoing, tags: same?.tags, unreadCount: unread, lastMessage: message)
    }
}

extension Message {
    /// A message from a live event's history-shaped object; throws when it has no parts.
    public init(live: LiveMessage) throws {
        guard let message = try WireDecoding.decodeValue(live.json, { try WireDecoding.message($0) }) else {
            throw ChatError.decodingFailed("the live message \(live.id) has no parts")
        }
        self = message
    }
}
