// Salesforce Messaging for In-App and Web, the event router's SSE stream (PROTOCOLS.md section 7;
// Salesforce's Messaging API pages "Server-Sent Events", "Server-Sent Events Structure",
// "Progress Indicators" and "Token Streaming").
//
// Every event's `data:` is an object with `conversationId` and `conversationEntry`; the entry's
// `entryPayload` is a second JSON document serialized into a string. That string is read where
// the outer parse left it (yajl's unescaped bytes, or the input itself when it had no escapes)
// and parsed by a second parser, so the nested document is not copied into a String first.
// This file holds the envelope and the table of event types; the messages are read in
// +Messages, the other entries in +Entries, and +Variants lists what is read. Types this model
// does not name are skipped and counted by the decoder.

import ChatStream
@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON

/// Reads one event of `GET /eventrouter/v1/sse`.
enum SalesforceMessagingDialect {
    static func decode(
        _ view: ServerSentEventView, parsers: LiveEventParsers, memory: inout LiveStreamMemory
    ) throws -> LiveEventOutcome {
        guard let type = EntryEvent(view) else {
            let name = view.typeName.lowercased()
            return name == "ping" || name == "keepalive" || name == "keep-alive" ? .keepAlive : .unknown
        }
        return try view.parseData(with: parsers.outer) { root in
            guard let conversationId = root["conversationId"]?.string else {
                throw view.missing("conversationId", "the event has no conversationId string")
            }
            guard let entry = root["conversationEntry"], entry.kind == .object else {
                throw view.missing("conversationEntry", "the event has no conversationEntry object")
            }
            let reading = EntryReading(conversationId: conversationId, entry: entry, view: view)
            switch type {
            case .typing, .typingStarted, .typingStopped:
                // The plain typing indicator says "typing now" (its payload has only when it
                // started); it lapses unless repeated (Salesforce's sample client hides it after 5 s).
                let role = role(entry["sender"]?["role"]?.string)
                return .event(
                    .typing(conversationId: conversationId, participant: role, active: type != .typingStopped))
            case .closed:
                return .event(.conversationClosed(conversationId: conversationId))
            default:
                return try withPayload(of: entry, view: view, parser: parsers.inner) { payload in
                    try reading.outcome(of: type, payload: payload, memory: &memory)
                }
            }
        }
    }

    /// The event types this model reads, by their `event:` name.
    enum EntryEvent: CaseIterable {
        case message, choicesResponse, streamingToken, progressIndicator, participantChanged, routingResult
        case routingWorkResult, queuePosition, delivered, read, typing, typingStarted, typingStopped, closed
        case sessionStatusChanged, clientAction, clientMenu

        /// The `event:` name.
        var name: StaticString {
            switch self {
            case .message: "CONVERSATION_MESSAGE"
            case .choicesResponse: "CHOICES_RESPONSE_MESSAGE"
            case .streamingToken: "CONVERSATION_STREAMING_TOKEN"
            case .progressIndicator: "CONVERSATION_PROGRESS_INDICATOR"
            case .participantChanged: "CONVERSATION_PARTICIPANT_CHANGED"
            case .routingResult: "CONVERSATION_ROUTING_RESULT"
            case .routingWorkResult: "CONVERSATION_ROUTING_WORK_RESULT"
            case .queuePosition: "CONVERSATION_QUEUE_POSITION"
            case .delivered: "CONVERSATION_DELIVERY_ACKNOWLEDGEMENT"
            case .read: "CONVERSATION_READ_ACKNOWLEDGEMENT"
            case .typing: "CONVERSATION_TYPING_INDICATOR"
            case .typingStarted: "CONVERSATION_TYPING_STARTED_INDICATOR"
            case .typingStopped: "CONVERSATION_TYPING_STOPPED_INDICATOR"
            case .closed: "CONVERSATION_CLOSE_CONVERSATION"
            case .sessionStatusChanged: "CONVERSATION_SESSION_STATUS_CHANGED"
            case .clientAction: "CONVERSATION_CLIENT_ACTION"
            case .clientMenu: "CONVERSATION_CLIENT_MENU"
            }
        }

        init?(_ view: ServerSentEventView) {
            guard let found = Self.allCases.first(where: { view.typeIs($0.name) }) else { return nil }
            self = found
        }
    }

    /// Parses `entryPayload` (a JSON document inside a JSON string) and reads it with `body`.
    static func withPayload<R>(
        of entry: JSONElement, view: ServerSentEventView, parser: JSONParser, _ body: (JSONElement) throws -> R
    ) throws -> R {
        let field = "conversationEntry.entryPayload"
        guard let payload = entry["entryPayload"] else { throw view.missing(field, "the entry has no entryPayload") }
        let parsed: R?
        do {
            parsed = try payload.withUTF8 { bytes in try parser.parse(bytes, body) }
        } catch let error as JSONError {
            throw ConversationEventError(
                .payloadNotJSON, eventType: view.typeName, byteOffset: view.byteOffset, field: field,
                message: "entryPayload is not a JSON document (\(error.description) of the payload)")
        }
        guard let parsed else { throw view.missing(field, "entryPayload is not a string") }
        return parsed
    }

    /// Salesforce's participant roles in the home model: `EndUser` the user, `Chatbot` the AI
    /// agent, `Agent` a human agent (a rep); others (`System`, `Router`, `Supervisor`) kept as
    /// spelled.
    static func role(_ raw: String?) -> ParticipantRole {
        guard let raw else { return .other("unknown") }
        switch raw.lowercased() {
        case "enduser": return .user
        case "chatbot": return .agent
        case "agent": return .humanAgent
        default: return .other(raw)
        }
    }
}

/// One event's envelope while its payload is read: the conversation, the entry, and where the
/// event is (for errors).
struct EntryReading {
    let conversationId: String
    let entry: JSONElement
    let view: ServerSentEventView

    /// The error for a payload field that is absent or of the wrong type; `path` is below
    /// `conversationEntry.entryPayload`.
    func missing(_ path: String, _ what: String) -> ConversationEventError {
        view.missing("conversationEntry.entryPayload." + path, what)
    }
}
