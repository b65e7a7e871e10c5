// StoreModels: the records a ChatAPIServer keeps in its database (see StoreSchema for the tables).
//
// Every change takes a number from one store-wide sequence: messages carry theirs (history order
// and message cursors) and conversations carry the number of their last change (list order and
// conversation cursors), so order never depends on clock resolution.

import ChatStream

/// One message of a conversation, parts in the history wire shape.
struct MessageRecord: Sendable {
    var id: String
    /// `user`, or `assistant` for everything the agent says.
    var role: String
    var parts: [JSONTree]
    var createdAt: Int
    var sequence: Int
    /// The ID the client sent the message with (PROTOCOLS.md section 6), if any.
    var clientMessageId: String? = nil
    /// For an agent reply that did not simply finish: still generating, stopped, or cut by a restart.
    var replyState: ReplyState? = nil

    var isFromUser: Bool { role == "user" }

    /// The text of the message's text parts, joined.
    var text: String { Self.text(of: parts) }

    /// The text of `parts`' text parts, joined.
    static func text(of parts: [JSONTree]) -> String {
        parts.compactMap { $0["type"]?.stringValue == "text" ? $0["text"]?.stringValue : nil }.joined(separator: " ")
    }
}

/// A message's parts in the forms the store keeps (JSON, search text, preview, size), computed
/// before the write lock is taken, so a long message costs the lock only its insert.
struct StoredParts: Sendable {
    var parts: [JSONTree]
    var json: String
    var text: String
    var searchText: String
    var preview: String

    init(_ parts: [JSONTree]) {
        self.parts = parts
        json = JSONTree.array(parts).jsonText
        text = MessageRecord.text(of: parts)
        searchText = text.fastLowercased
        preview = MessagePreview.stored(text)
    }

    /// The UTF-8 size of the JSON (what the quota counts).
    var size: Int { json.utf8.count }
}

/// How a streamed reply ended, when it did not simply finish (PROTOCOLS.md section 8); stored in
/// `messages.reply_state`, NULL for a finished reply and every other message.
enum ReplyState: String, Sendable {
    /// Being generated: hidden from history until it ends (its parts are the latest checkpoint).
    case generating
    /// Stopped by `POST .../stop`: the text it had, history `metadata.aborted: true`.
    case stopped
    /// Cut by a server stop or crash: the text it had, history `metadata.interrupted: true`.
    case interrupted
}

/// One conversation's own fields (its messages, tags and read positions are rows of their own).
struct ConversationRecord: Sendable {
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
    /// The agent it belongs to (nil: stored before conversations were kept per agent).
    var agentId: String? = nil

    /// The list partition the conversation belongs to: its user's, or its device's while anonymous.
    var ownerKey: String { Caller.ownerKey(user: ownerUser, device: ownerDevice) }
}

/// A conversation as one caller sees it: the record with the caller's tags and unread count and
/// the latest visible message.
struct ConversationView: Sendable {
    var record: ConversationRecord
    var tags: [String]
    var unreadCount: Int
    var lastMessage: MessagePreview?
}

/// The start of a message's text, as list pages and live events show a conversation's last message.
struct MessagePreview: Sendable {
    /// The most characters of text the database keeps per message for previews.
    static let storedLength = 1_000
    /// The most bytes of UTF-8 the database keeps per message for previews: four per character,
    /// so that characters with any number of combining marks cannot make a preview megabytes long.
    static let storedBytes = 4 * (storedLength + 1)

    var id: String
    var role: String
    var createdAt: Int
    var clientMessageId: String?
    /// The message's text parts joined, cut at the preview length.
    var text: String
    /// Whether ``text`` was cut.
    var truncated: Bool

    /// What the database keeps of `text`: one character more than a preview shows, and at most
    /// ``storedBytes`` (cut between Unicode scalars), so a cut shows as a longer stored text.
    static func stored(_ text: String) -> String {
        // No longer in bytes than a stored preview's characters: kept whole without walking them.
        if text.utf8.count <= storedLength + 1 { return text }
        return scalarPrefix(String(text.prefix(storedLength + 1)), maxBytes: storedBytes)
    }

    /// What a preview of `length` characters shows of a stored text: at most `length` characters
    /// and four bytes per character. It was cut when it is shorter than `stored`.
    static func shown(_ stored: String, length: Int) -> String {
        // No longer in bytes than `length`: no longer in characters either (the usual case: a
        // short message, shown whole without walking its characters).
        if stored.utf8.count <= length { return stored }
        return scalarPrefix(String(stored.prefix(length)), maxBytes: 4 * length)
    }

    /// The longest prefix of `text` of at most `maxBytes` bytes of UTF-8, cut between Unicode scalars.
    static func scalarPrefix(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var scalars = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= maxBytes else { break }
            scalars.append(scalar)
        }
        return String(scalars)
    }
}

extension MessagePreview {
    /// The preview of a message read from the store: `stored` (its kept text) shown at `length`
    /// characters, marked cut when that is shorter than what is kept.
    init(stored: String, length: Int, id: String, role: String, createdAt: Int, clientMessageId: String?) {
        let shown = Self.shown(stored, length: length)
        self.init(
            id: id, role: role, createdAt: createdAt, clientMessageId: clientMessageId, text: shown,
            truncated: shown.utf8.count < stored.utf8.count)
    }
}
