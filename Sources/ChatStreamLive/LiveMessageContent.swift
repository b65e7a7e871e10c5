// What a live message carries besides its text: the options it offers (bot menus, quick
// replies, buttons, carousels), the options a user picked, its attachments, its wire types, and
// the whole wire payload for what this model does not name (forms, citations, rich links' images).

import ChatStream

/// The parts of a ``LiveMessage`` beyond its text.
public struct LiveMessageContent: Sendable, Hashable {
    /// The wire message type (Salesforce: `StaticContentMessage`, `ChoicesMessage`,
    /// `ChoicesResponseMessage`, `FormMessage`, ...), when there is one.
    public var messageType: String?
    /// The wire format type (Salesforce: `Text`, `Buttons`, `QuickReplies`, `Carousel`,
    /// `Selections`, `Attachments`, `RichLink`, `WebView`, `ExperienceType`, ...), when there is one.
    public var formatType: String?
    /// The options the message offers, in order.
    public var options: [MessageOption]
    /// The options a user picked (a reply to a choices message), in order.
    public var selectedOptions: [MessageOption]
    /// The files attached, in order.
    public var attachments: [MessageAttachment]
    /// The message this one answers, when the wire says.
    public var inReplyToMessageId: String?
    /// Whether streamed pieces (`ConversationEvent.Kind.messageDelta`)
    /// of this message came before it: its text is the whole text and replaces the draft.
    public var completesStream: Bool
    /// The whole wire payload, parsed (Salesforce: `entryPayload`), for what the model does not
    /// name; `nil` for the home protocol.
    public var payload: JSONTree?

    /// Makes content.
    public init(
        messageType: String? = nil, formatType: String? = nil, options: [MessageOption] = [],
        selectedOptions: [MessageOption] = [], attachments: [MessageAttachment] = [],
        inReplyToMessageId: String? = nil, completesStream: Bool = false, payload: JSONTree? = nil
    ) {
        self.messageType = messageType
        self.formatType = formatType
        self.options = options
        self.selectedOptions = selectedOptions
        self.attachments = attachments
        self.inReplyToMessageId = inReplyToMessageId
        self.completesStream = completesStream
        self.payload = payload
    }
}

/// One option of a choices message (a button, a quick reply, a carousel card), or one a user
/// picked.
public struct MessageOption: Sendable, Hashable {
    /// The option's identifier (Salesforce: `optionIdentifier`), to answer with; empty when the
    /// wire gave none.
    public var id: String
    /// The title shown; empty when the wire gave none and no earlier message in the stream
    /// offered the option.
    public var title: String
    /// The subtitle, when given.
    public var subtitle: String?

    /// Makes an option.
    public init(id: String, title: String, subtitle: String? = nil) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
    }
}

/// A file attached to a message.
public struct MessageAttachment: Sendable, Hashable {
    /// The file's name.
    public var name: String
    /// Where to fetch it.
    public var url: String
    /// Its media type (`image/png`), when given.
    public var mimeType: String?
    /// The attachment's ID, when given.
    public var id: String?

    /// Makes an attachment.
    public init(name: String, url: String, mimeType: String? = nil, id: String? = nil) {
        self.name = name
        self.url = url
        self.mimeType = mimeType
        self.id = id
    }
}
