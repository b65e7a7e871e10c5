// Salesforce Messaging for In-App and Web, the event router's SSE stream (PROTOCOLS.md section 7;
// Salesforce's Messaging API pages "Server-Sent Events" and "Server-Sent Events Structure").
//
// Every event's `data:` is an object with `conversationId` and `conversationEntry`; the entry's
// `entryPayload` is a second JSON document serialized into a string. That string is read where
// the outer parse left it (yajl's unescaped bytes, or the input itself when it had no escapes)
// and parsed by a second parser, so the nested document is not copied into a String first.
// Types this model does not name (progress indicators, client actions, streamed tokens, and
// whatever comes later) are skipped and counted by the decoder.

import ChatStreamFraming
import ChatStreamJSON

/// Reads one event of `GET /eventrouter/v1/sse`.
enum SalesforceMessagingDialect {
    static func decode(_ view: ServerSentEventView, parsers: LiveEventParsers) throws -> LiveEventOutcome {
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
            return .event(
                try type.kind(conversationId: conversationId, entry: entry, view: view, parser: parsers.inner))
        }
    }

    /// The event types this model reads.
    enum EntryEvent {
        case message, participantChanged, routingResult, delivered, read, typingStarted, typingStopped, closed
        case sessionStatusChanged

        init?(_ view: ServerSentEventView) {
            if view.typeIs("CONVERSATION_MESSAGE") {
                self = .message
            } else if view.typeIs("CONVERSATION_PARTICIPANT_CHANGED") {
                self = .participantChanged
            } else if view.typeIs("CONVERSATION_ROUTING_RESULT") {
                self = .routingResult
            } else if view.typeIs("CONVERSATION_DELIVERY_ACKNOWLEDGEMENT") {
                self = .delivered
            } else if view.typeIs("CONVERSATION_READ_ACKNOWLEDGEMENT") {
                self = .read
            } else if view.typeIs("CONVERSATION_TYPING_STARTED_INDICATOR") {
                self = .typingStarted
            } else if view.typeIs("CONVERSATION_TYPING_STOPPED_INDICATOR") {
                self = .typingStopped
            } else if view.typeIs("CONVERSATION_CLOSE_CONVERSATION") {
                self = .closed
            } else if view.typeIs("CONVERSATION_SESSION_STATUS_CHANGED") {
                self = .sessionStatusChanged
            } else {
                return nil
            }
        }

        func kind(
            conversationId id: String, entry: JSONElement, view: ServerSentEventView, parser: JSONParser
        ) throws -> ConversationEvent.Kind {
            switch self {
            case .typingStarted, .typingStopped:
                let role = SalesforceMessagingDialect.role(entry["sender"]?["role"]?.string)
                return .typing(conversationId: id, participant: role, active: self == .typingStarted)
            case .closed:
                return .conversationClosed(conversationId: id)
            default:
                return try SalesforceMessagingDialect.withPayload(of: entry, view: view, parser: parser) { payload in
                    try payloadKind(conversationId: id, entry: entry, payload: payload, view: view)
                }
            }
        }

        private func payloadKind(
            conversationId id: String, entry: JSONElement, payload: JSONElement, view: ServerSentEventView
        ) throws -> ConversationEvent.Kind {
            switch self {
            case .message:
                return .messageCreated(try SalesforceMessagingDialect.message(id, entry, payload, view))
            case .participantChanged:
                var changes: [ParticipantChange] = []
                payload["entries"]?.forEachElement { change in
                    let participant = change["participant"]
                    changes.append(
                        ParticipantChange(
                            joined: change["operation"]?.string?.lowercased() != "remove",
                            role: SalesforceMessagingDialect.role(participant?["role"]?.string),
                            displayName: change["displayName"]?.string))
                }
                return .participantChanged(conversationId: id, changes: changes)
            case .routingResult:
                guard let routingType = payload["routingType"]?.string else {
                    throw view.missing(
                        "conversationEntry.entryPayload.routingType", "the routing result has no routingType")
                }
                let failure = payload["failureType"]?.string.flatMap { $0 == "None" ? nil : $0 }
                let wait = payload["estimatedWaitTime"]
                return .routingResult(
                    conversationId: id,
                    result: RoutingResult(
                        routingType: routingType, failure: failure,
                        estimatedWaitSeconds: wait?["estimatedWaitTimeInSeconds"]?.double,
                        queuePosition: wait?["positionInQueue"]?.int))
            case .delivered, .read:
                guard let messageId = payload["acknowledgedConversationEntryIdentifier"]?.string else {
                    throw view.missing(
                        "conversationEntry.entryPayload.acknowledgedConversationEntryIdentifier",
                        "the acknowledgement names no entry")
                }
                let timestamp = payload["acknowledgementTimestamp"]?.double.map { $0 / 1000 }
                let kind: Acknowledgement.Kind = self == .read ? .read : .delivered
                return .acknowledged(
                    conversationId: id,
                    acknowledgement: Acknowledgement(kind: kind, messageId: messageId, timestamp: timestamp))
            case .sessionStatusChanged:
                guard let status = payload["sessionStatus"]?.string else {
                    throw view.missing(
                        "conversationEntry.entryPayload.sessionStatus", "the change has no sessionStatus")
                }
                return .sessionStatusChanged(conversationId: id, status: status)
            case .typingStarted, .typingStopped, .closed:
                preconditionFailure("read without the payload")
            }
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

    /// A message entry: its text is `abstractMessage.staticContent.text` inside the payload.
    static func message(
        _ conversationId: String, _ entry: JSONElement, _ payload: JSONElement, _ view: ServerSentEventView
    ) throws -> LiveMessage {
        guard let abstract = payload["abstractMessage"], abstract.kind == .object else {
            throw view.missing("conversationEntry.entryPayload.abstractMessage", "the message has no abstractMessage")
        }
        guard let id = entry["identifier"]?.string ?? abstract["id"]?.string else {
            throw view.missing("conversationEntry.identifier", "the message has no identifier")
        }
        let text = abstract["staticContent"]?["text"]?.string ?? ""
        let milliseconds = entry["transcriptedTimestamp"]?.double ?? entry["clientTimestamp"]?.double ?? 0
        let sender = role(entry["sender"]?["role"]?.string)
        let name = entry["senderDisplayName"]?.string
        let part: JSONTree = ["type": "text", "text": .string(text)]
        var json = JSONObject([
            ("id", JSONTree.string(id)), ("role", .string(sender.description)), ("parts", .array([part])),
            ("createdAt", .number(JSONNumber(milliseconds / 1000))),
        ])
        if let name { json["senderName"] = .string(name) }
        return LiveMessage(
            id: id, conversationId: conversationId, sender: sender, senderName: name, text: text,
            createdAt: milliseconds / 1000, json: .object(json))
    }

    /// Salesforce's participant roles in the home model: `EndUser` the user, `Chatbot` the AI
    /// agent, `Agent` a human agent (a rep); others kept as spelled.
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
