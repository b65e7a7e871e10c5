// StoreModels: the records a ChatAPIServer keeps, in memory and in its data file.
//
// Every change takes a number from one store-wide sequence: messages carry theirs (history order
// and message cursors) and conversations carry the number of their last change (list order and
// conversation cursors), so order never depends on clock resolution.

import ChatStream

/// One message of a conversation, parts in the history wire shape.
struct MessageRecord: Codable, Sendable {
    var id: String
    /// `user`, or `assistant` for everything the agent says.
    var role: String
    var parts: [JSONTree]
    var createdAt: Int
    var sequence: Int

    var isFromUser: Bool { role == "user" }

    /// The text of the message's text parts, joined.
    var text: String {
        parts.compactMap { $0["type"]?.stringValue == "text" ? $0["text"]?.stringValue : nil }.joined(separator: " ")
    }
}

/// One conversation with its messages and each device's tags and read position.
struct ConversationRecord: Codable, Sendable {
    var id: String
    var title: String?
    var createdAt: Int
    var updatedAt: Int
    /// The sequence number of the last change (list order).
    var updateSequence: Int
    /// The device that started the conversation.
    var ownerDevice: String
    /// The user the conversation belongs to, once identified (then the device no longer matters).
    var ownerUser: String?
    /// `ongoing`, `ended` or `taken_over`.
    var status: String
    var messages: [MessageRecord]
    /// Tags by identity (``Caller/identity``: the user when signed in, else the device): each sees its own only.
    var tags: [String: [String]]
    /// The sequence number of the last message each identity marked read.
    var lastRead: [String: Int]

    /// Who hears this conversation's live events: its user's identity once it has one, else its device.
    var audience: String { ownerUser.map(Caller.userIdentity) ?? ownerDevice }

    /// The messages a history page shows (a message with no parts is skipped).
    var visibleMessages: [MessageRecord] { messages.filter { !$0.parts.isEmpty } }

    /// Agent messages after `identity`'s last read.
    func unreadCount(for identity: String) -> Int {
        let last = lastRead[identity] ?? 0
        return messages.reduce(0) { $0 + ($1.isFromUser || $1.sequence <= last || $1.parts.isEmpty ? 0 : 1) }
    }
}

/// Everything the server knows; guarded by ``ConversationStore``.
struct StoreState: Codable, Sendable {
    /// The data file's format version.
    var version = 1
    var sequence = 0
    var conversations: [String: ConversationRecord] = [:]
    /// The live events still held for resumption (absent in data files written before them).
    var liveEvents: LiveEventLog? = nil

    /// The next number of the store-wide sequence.
    mutating func nextSequence() -> Int {
        sequence += 1
        return sequence
    }
}
