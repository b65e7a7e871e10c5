// The home server's live events (PROTOCOLS.md section 6): `event:` names the type, one `data:`
// line of JSON carries it. Conversations and messages are kept whole as trees (the client maps
// them with its usual decoding); the fields a list or a composer needs are read from the tape.

import ChatStream
@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON

/// Reads one event of `GET /agents/{agentId}/events`.
enum HomeLiveEventDialect {
    static func decode(_ view: ServerSentEventView, parsers: LiveEventParsers) throws -> LiveEventOutcome {
        if view.typeIs("message.created") {
            return try view.parseData(with: parsers.outer) { root in
                guard let conversationId = root["conversationId"]?.string else {
                    throw view.missing("conversationId", "a message.created event has no conversationId string")
                }
                guard let message = root["message"], message.kind == .object else {
                    throw view.missing("message", "a message.created event has no message object")
                }
                return .event(.messageCreated(try Self.message(message, in: conversationId, view)))
            }
        }
        if view.typeIs("conversation.updated") || view.typeIs("conversation.created") {
            let created = view.typeIs("conversation.created")
            return try view.parseData(with: parsers.outer) { root in
                guard let element = root["conversation"], element.kind == .object else {
                    throw view.missing("conversation", "the event has no conversation object")
                }
                let conversation = try Self.conversation(element, view)
                return .event(created ? .conversationCreated(conversation) : .conversationUpdated(conversation))
            }
        }
        if view.typeIs("typing") {
            return try view.parseData(with: parsers.outer) { root in
                guard let conversationId = root["conversationId"]?.string else {
                    throw view.missing("conversationId", "a typing event has no conversationId string")
                }
                guard let active = root["active"]?.bool else {
                    throw view.missing("active", "a typing event has no active Boolean")
                }
                let participant = ParticipantRole(home: root["participant"]?.string ?? "agent")
                return .event(.typing(conversationId: conversationId, participant: participant, active: active))
            }
        }
        if view.typeIs("reset") { return .event(.reset) }
        if view.typeIs("subscribed") { return .event(.subscribed) }
        return .unknown
    }

    static func conversation(_ element: JSONElement, _ view: ServerSentEventView) throws -> LiveConversation {
        guard let id = element["id"]?.string else {
            throw view.missing("conversation.id", "the conversation has no id string")
        }
        guard let updatedAt = (element["updatedAt"] ?? element["createdAt"])?.double else {
            throw view.missing("conversation.updatedAt", "the conversation has no updatedAt number")
        }
        return LiveConversation(
            id: id, status: element["status"]?.string ?? "ongoing", updatedAt: updatedAt,
            unreadCount: element["unreadCount"]?.int, json: element.jsonValue)
    }

    static func message(
        _ element: JSONElement, in conversationId: String, _ view: ServerSentEventView
    ) throws -> LiveMessage {
        guard let id = element["id"]?.string else { throw view.missing("message.id", "the message has no id string") }
        guard let createdAt = element["createdAt"]?.double else {
            throw view.missing("message.createdAt", "the message has no createdAt number")
        }
        var text = ""
        element["parts"]?.forEachElement { part in
            if part["type"]?.isString("text") == true, let piece = part["text"]?.string { text += piece }
        }
        let role = element["role"]?.string ?? "assistant"
        return LiveMessage(
            id: id, conversationId: conversationId, sender: ParticipantRole(home: role),
            senderName: element["senderName"]?.string, text: text, createdAt: createdAt, json: element.jsonValue)
    }
}
