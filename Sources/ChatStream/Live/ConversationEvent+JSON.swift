// One event as one JSON object, `{"id", "type", ...data}`: the `chatstream events --json` and
// `replay --format salesforce-messaging` line, and the golden form of the fixtures.

extension ConversationEvent {
    /// The wire type name: the home protocol's (`message.created`, `typing`, `reset`, ...) for the
    /// kinds it has, and `participant.changed`, `routing.result`, `message.delivered`,
    /// `message.read`, `conversation.closed`, `session.status_changed` for the others.
    public var typeName: String {
        switch kind {
        case .conversationCreated: "conversation.created"
        case .conversationUpdated: "conversation.updated"
        case .messageCreated: "message.created"
        case .typing: "typing"
        case .participantChanged: "participant.changed"
        case .routingResult: "routing.result"
        case .acknowledged(_, let acknowledgement):
            acknowledgement.kind == .read ? "message.read" : "message.delivered"
        case .conversationClosed: "conversation.closed"
        case .sessionStatusChanged: "session.status_changed"
        case .reset: "reset"
        }
    }

    /// The event as `{"id", "type", ...data}`; `data` as the home protocol would send it.
    public var jsonValue: JSONTree {
        var members: [(String, JSONTree)] = [("id", id.map(JSONTree.string) ?? .null), ("type", .string(typeName))]
        func add(_ key: String, _ value: JSONTree?) { if let value { members.append((key, value)) } }
        func number(_ value: Double?) -> JSONTree? { value.map { .number(JSONNumber($0)) } }
        switch kind {
        case .conversationCreated(let conversation), .conversationUpdated(let conversation):
            add("conversation", conversation.json)
        case .messageCreated(let message):
            add("conversationId", .string(message.conversationId))
            add("message", message.json)
        case .typing(let id, let participant, let active):
            add("conversationId", .string(id))
            add("participant", .string(participant.description))
            add("active", .bool(active))
        case .participantChanged(let id, let changes):
            add("conversationId", .string(id))
            let list: [JSONTree] = changes.map { change in
                var object = JSONObject([("joined", .bool(change.joined)), ("role", .string(change.role.description))])
                if let name = change.displayName { object["displayName"] = .string(name) }
                return .object(object)
            }
            add("changes", .array(list))
        case .routingResult(let id, let result):
            add("conversationId", .string(id))
            add("routingType", .string(result.routingType))
            add("failure", result.failure.map(JSONTree.string))
            add("estimatedWaitSeconds", number(result.estimatedWaitSeconds))
            add("queuePosition", result.queuePosition.map { .number(JSONNumber($0)) })
        case .acknowledged(let id, let acknowledgement):
            add("conversationId", .string(id))
            add("messageId", .string(acknowledgement.messageId))
            add("timestamp", number(acknowledgement.timestamp))
        case .conversationClosed(let id):
            add("conversationId", .string(id))
        case .sessionStatusChanged(let id, let status):
            add("conversationId", .string(id))
            add("status", .string(status))
        case .reset:
            break
        }
        return .object(JSONObject(members))
    }

    /// One human-readable line: `ID TYPE conversation detail`.
    public var summary: String {
        var line = "\(id ?? "-") \(typeName)"
        if let conversationId { line += " \(conversationId)" }
        switch kind {
        case .conversationCreated(let conversation), .conversationUpdated(let conversation):
            line += " status=\(conversation.status)"
            if let unread = conversation.unreadCount { line += " unread=\(unread)" }
        case .messageCreated(let message): line += " \(message.sender): \(message.text)"
        case .typing(_, let participant, let active): line += " \(participant) \(active ? "started" : "stopped")"
        case .participantChanged(_, let changes):
            line += changes.map { " \($0.displayName ?? $0.role.description) \($0.joined ? "joined" : "left")" }
                .joined()
        case .routingResult(_, let result):
            line += " \(result.routingType)" + (result.failure.map { " failed: \($0)" } ?? "")
        case .acknowledged(_, let acknowledgement): line += " \(acknowledgement.messageId)"
        case .sessionStatusChanged(_, let status): line += " \(status)"
        case .conversationClosed, .reset: break
        }
        return line
    }
}
