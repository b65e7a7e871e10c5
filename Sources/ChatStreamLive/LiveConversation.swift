import ChatStream

/// A conversation as a live event carries it: the fields a list needs, and the whole wire object.
///
/// `json` is the conversation in the list shape of PROTOCOLS.md section 1 (with the extension
/// fields of section 5 when the server has them), so a client maps it with its usual decoding.
public struct LiveConversation: Sendable, Hashable {
    /// The conversation's ID.
    public var id: String
    /// The wire status (`ongoing`, `ended`, `taken_over`, or one this model does not know).
    public var status: String
    /// When it last changed, in seconds since 1970.
    public var updatedAt: Double
    /// Agent messages after the caller's last read, when the server counts them.
    public var unreadCount: Int?
    /// The whole conversation object as it arrived.
    public var json: JSONTree

    /// Makes a conversation.
    public init(id: String, status: String, updatedAt: Double, unreadCount: Int? = nil, json: JSONTree) {
        self.id = id
        self.status = status
        self.updatedAt = updatedAt
        self.unreadCount = unreadCount
        self.json = json
    }
}

/// A message as a live event carries it.
///
/// `json` is the message in the history shape of PROTOCOLS.md section 1
/// (`{"id","role","parts","createdAt",...}`); a dialect whose wire has another shape makes one.
public struct LiveMessage: Sendable, Hashable {
    /// The message's ID.
    public var id: String
    /// The conversation it belongs to.
    public var conversationId: String
    /// Who sent it.
    public var sender: ParticipantRole
    /// The name shown for the sender, when given.
    public var senderName: String?
    /// The message's text (its text parts joined).
    public var text: String
    /// When it was stored, in seconds since 1970.
    public var createdAt: Double
    /// The message in the history shape.
    public var json: JSONTree
    /// What a dialect read beyond the text: options, selections, attachments, the wire types and
    /// the whole wire payload (Salesforce); empty for the home protocol, whose ``json`` is whole.
    public var content: LiveMessageContent

    /// Makes a message.
    public init(
        id: String, conversationId: String, sender: ParticipantRole, senderName: String? = nil, text: String,
        createdAt: Double, json: JSONTree, content: LiveMessageContent = LiveMessageContent()
    ) {
        self.id = id
        self.conversationId = conversationId
        self.sender = sender
        self.senderName = senderName
        self.text = text
        self.createdAt = createdAt
        self.json = json
        self.content = content
    }
}
