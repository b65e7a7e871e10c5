// Conversation and its status, in the wire shape of PROTOCOLS.md sections 1 and 5.

import ChatStream
import Foundation

/// Where a conversation stands. Only ``ongoing`` conversations take new messages.
///
/// An unknown status from a newer server reads as ``ongoing`` (forward compatible).
public enum ConversationStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Open for new messages.
    case ongoing
    /// Closed; chats answer `403 CHAT_CONVERSATION_NOT_ONGOING`.
    case ended
    /// A human agent took it over (`taken_over` on the wire).
    case takenOver = "taken_over"

    /// Reads a wire status; an unknown value is ``ongoing``.
    public init(wire: String?) {
        self = wire.flatMap(ConversationStatus.init(rawValue:)) ?? .ongoing
    }

    public init(from decoder: any Decoder) throws {
        self.init(wire: try? decoder.singleValueContainer().decode(String.self))
    }
}

/// A conversation as the history API lists it.
///
/// ```swift
/// let page = try await client.listConversations(limit: 20)
/// for conversation in page.data { print(conversation.id, conversation.title ?? "untitled") }
/// ```
public struct Conversation: Identifiable, Hashable, Sendable {
    /// The server's ID.
    public var id: String
    /// The title, when the server has one.
    public var title: String?
    /// When it began.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// The identified user it belongs to, nil for an anonymous device.
    public var userId: String?
    /// Where it stands. A status this client does not know reads as ``ConversationStatus/ongoing``
    /// (see ``rawStatus`` for the wire value). Setting it replaces ``rawStatus``.
    public var status: ConversationStatus {
        didSet { unknownStatus = nil }
    }
    /// The wire value of an unknown status (nil when the status is one ``ConversationStatus`` knows).
    private var unknownStatus: String?
    /// The status exactly as the server sent it: `"taken_over"`, or a value this client does not
    /// know (which ``status`` reads as ``ConversationStatus/ongoing``).
    public var rawStatus: String { unknownStatus ?? status.rawValue }
    /// The caller's tags (conversation-management extension; nil when the server lacks it).
    public var tags: [String]?
    /// Agent messages after the caller's last read (extension; nil when the server lacks it).
    public var unreadCount: Int?
    /// The newest message (extension; nil when absent or when the server lacks it).
    public var lastMessage: Message?

    /// A conversation.
    public init(
        id: String, title: String? = nil, createdAt: Date, updatedAt: Date, userId: String? = nil,
        status: ConversationStatus = .ongoing, tags: [String]? = nil, unreadCount: Int? = nil,
        lastMessage: Message? = nil
    ) {
        self.init(
            id: id, title: title, createdAt: createdAt, updatedAt: updatedAt, userId: userId, wireStatus: nil,
            status: status, tags: tags, unreadCount: unreadCount, lastMessage: lastMessage)
    }

    /// A conversation with the status as the server sent it (unknown values read as ongoing).
    init(
        id: String, title: String?, createdAt: Date, updatedAt: Date, userId: String?, wireStatus: String?,
        status: ConversationStatus? = nil, tags: [String]?, unreadCount: Int?, lastMessage: Message?
    ) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.userId = userId
        let known = wireStatus.flatMap(ConversationStatus.init(rawValue:))
        self.status = status ?? ConversationStatus(wire: wireStatus)
        self.unknownStatus = known == nil && status == nil ? wireStatus : nil
        self.tags = tags
        self.unreadCount = unreadCount
        self.lastMessage = lastMessage
    }

    /// The conversation in its wire shape (dates as epoch seconds, the status as ``rawStatus``).
    public var jsonValue: JSONTree {
        var object = JSONObject()
        object["id"] = .string(id)
        object["title"] = title.map(JSONTree.string) ?? .null
        object["createdAt"] = WireDate.json(createdAt)
        object["updatedAt"] = WireDate.json(updatedAt)
        object["userId"] = userId.map(JSONTree.string) ?? .null
        object["status"] = .string(rawStatus)
        if let tags { object["tags"] = .array(tags.map(JSONTree.string)) }
        if let unreadCount { object["unreadCount"] = .number(JSONNumber(unreadCount)) }
        if tags != nil || unreadCount != nil || lastMessage != nil {
            object["lastMessage"] = lastMessage?.jsonValue ?? .null
        }
        return .object(object)
    }
}

extension Conversation: Codable {
    public init(from decoder: any Decoder) throws {
        self = try WireDecoding.decodeValue(JSONTree(from: decoder), WireDecoding.conversation)
    }

    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}

/// Dates on the wire: epoch seconds.
enum WireDate {
    static func json(_ date: Date) -> JSONTree {
        let seconds = date.timeIntervalSince1970
        if seconds.rounded() == seconds, abs(seconds) < 1e15 { return .number(JSONNumber(Int64(seconds))) }
        return .number(JSONNumber(seconds))
    }
}
