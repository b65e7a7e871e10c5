import ChatStream

/// Why one live event could not be decoded: which event, where, and which field.
///
/// A ``ConversationEventDecoder`` skips such an event and keeps it in
/// ``ConversationEventDecoder/skippedErrors`` (unless it is not lenient); the stream goes on.
public struct ConversationEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidJSON = "invalid JSON"
            case missingField = "missing field"
            case payloadNotJSON = "payload not JSON"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The event's `data` is not one JSON object.
        public static let invalidJSON = Kind(.invalidJSON)
        /// A field the event cannot do without is absent or of the wrong type.
        public static let missingField = Kind(.missingField)
        /// A field that must hold a serialized JSON document (Salesforce's `entryPayload`) does not.
        public static let payloadNotJSON = Kind(.payloadNotJSON)

        /// The kind's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var kind: Kind
    /// The event's type (its `event:` field).
    public var eventType: String
    /// Offset in the stream of the event's first field line.
    public var byteOffset: Int
    /// The field at fault, as a dotted path (`conversationEntry.entryPayload`), when one is.
    public var field: String?
    /// What went wrong.
    public var message: String

    /// Makes an error.
    public init(_ kind: Kind, eventType: String, byteOffset: Int, field: String? = nil, message: String) {
        self.kind = kind
        self.eventType = eventType
        self.byteOffset = byteOffset
        self.field = field
        self.message = message
    }

    /// One line: `event TYPE at byte N: field F: message`.
    public var description: String {
        let place = field.map { " field \($0):" } ?? ""
        return "event \(eventType) at byte \(byteOffset):\(place) \(kind): \(message)"
    }
}
