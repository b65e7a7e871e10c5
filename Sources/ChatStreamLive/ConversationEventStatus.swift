// The small values the newer live event kinds carry: streamed text, the verdict on it, an
// agent's progress, routed work and client actions. Salesforce's event router sends them
// (PROTOCOLS.md section 7); the home protocol has none of them.

import ChatStream

/// A piece of a message's text as it is generated.
public struct MessageDelta: Sendable, Hashable {
    /// The message the piece belongs to: the ID its finished ``LiveMessage`` will have
    /// (Salesforce: `targetMessageIdentifier`).
    public var messageId: String
    /// The piece's place among the message's pieces, increasing (they may arrive out of order).
    public var sequenceNumber: Int
    /// The text of the piece.
    public var text: String
    /// The ID of the piece itself, when given.
    public var id: String?

    /// Makes a delta.
    public init(messageId: String, sequenceNumber: Int, text: String, id: String? = nil) {
        self.messageId = messageId
        self.sequenceNumber = sequenceNumber
        self.text = text
        self.id = id
    }
}

/// The server's verdict on a streamed message: its safety layer checks the whole text only once
/// it is complete, so text already shown may be withdrawn (then other text may stream).
public struct StreamValidation: Sendable, Hashable {
    /// The streamed message judged.
    public var messageId: String
    /// Whether the text streamed so far may stay.
    public var isValid: Bool
    /// Why it may not, when given (for logs, not for end users).
    public var reason: String?

    /// Makes a verdict.
    public init(messageId: String, isValid: Bool, reason: String? = nil) {
        self.messageId = messageId
        self.isValid = isValid
        self.reason = reason
    }
}

/// What an agent reports doing before it answers.
public struct ProgressStatus: Sendable, Hashable {
    /// The kind of indicator.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// A progress update with a message to show (Salesforce: `ProgressUpdateIndicator`).
        case update
        /// A kind this model has no name for, as the wire spelled it.
        case other(String)

        /// Reads Salesforce's `indicatorType`.
        public init(wire raw: String) {
            self = raw == "ProgressUpdateIndicator" ? .update : .other(raw)
        }

        /// The wire spelling.
        public var description: String {
            switch self {
            case .update: "ProgressUpdateIndicator"
            case .other(let raw): raw
            }
        }
    }

    /// The kind of indicator.
    public var kind: Kind
    /// The text to show ("Calling agent action: ..."); empty when the server sent none.
    public var text: String
    /// The indicator's entry ID, when given.
    public var id: String?

    /// Makes a status.
    public init(kind: Kind, text: String, id: String? = nil) {
        self.kind = kind
        self.text = text
        self.id = id
    }
}

/// A change in the state of the work routed to a human agent.
public struct RoutingWorkResult: Sendable, Hashable {
    /// The state the work reached.
    public enum WorkType: Sendable, Hashable, CustomStringConvertible {
        /// Offered to a rep.
        case assigned
        /// A rep accepted the conversation and is about to join.
        case accepted
        /// The work is closed.
        case closed
        /// A state this model has no name for, as the wire spelled it.
        case other(String)

        /// Reads Salesforce's `workType` (`Assigned`, `Accepted`, `Closed`).
        public init(wire raw: String) {
            switch raw {
            case "Assigned": self = .assigned
            case "Accepted": self = .accepted
            case "Closed": self = .closed
            default: self = .other(raw)
            }
        }

        /// The wire spelling.
        public var description: String {
            switch self {
            case .assigned: "Assigned"
            case .accepted: "Accepted"
            case .closed: "Closed"
            case .other(let raw): raw
            }
        }
    }

    /// The state the work reached.
    public var workType: WorkType
    /// The entry's ID, when given.
    public var id: String?

    /// Makes a result.
    public init(workType: WorkType, id: String? = nil) {
        self.workType = workType
        self.id = id
    }
}

/// A client action or client menu entry, kept whole: Salesforce documents only their entry types
/// (`ClientAction`, `ClientMenu`, the latter deprecated), so the payload is the reference.
public struct ClientAction: Sendable, Hashable {
    /// Which of the two entries it is.
    public enum Kind: String, Sendable, Hashable {
        /// A client action (`CONVERSATION_CLIENT_ACTION`).
        case action
        /// A client menu (`CONVERSATION_CLIENT_MENU`, deprecated by Salesforce).
        case menu
    }

    /// Which of the two entries it is.
    public var kind: Kind
    /// The options it offers, when it has an `options` (or `optionItems`) list with titles.
    public var options: [MessageOption]
    /// The whole entry payload, parsed.
    public var payload: JSONTree

    /// Makes an action.
    public init(kind: Kind, options: [MessageOption] = [], payload: JSONTree) {
        self.kind = kind
        self.options = options
        self.payload = payload
    }
}
