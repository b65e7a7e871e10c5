// One event as one JSON object, `{"id", "type", ...data}`: the `chatstream events --json` and
// `replay --format salesforce-messaging` line, and the golden form of the fixtures.

import ChatStream

extension ConversationEvent {
    /// The wire type name: the home protocol's (`message.created`, `typing`, `reset`, ...) for the
    /// kinds it has, and `message.delta`, `message.stream_validated`, `participant.changed`,
    /// `routing.result`, `routing.work_result`, `queue.position`, `progress`, `client.action`,
    /// `client.menu`, `message.delivered`, `message.read`, `conversation.closed`,
    /// `session.status_changed` for the others.
    public var typeName: String {
        switch kind {
        case .conversationCreated: "conversation.created"
        case .conversationUpdated: "conversation.updated"
        case .messageCreated: "message.created"
        case .messageDelta: "message.delta"
        case .messageStreamValidated: "message.stream_validated"
        case .typing: "typing"
        case .participantChanged: "participant.changed"
        case .routingResult: "routing.result"
        case .routingWorkResult: "routing.work_result"
        case .queuePosition: "queue.position"
        case .progress: "progress"
        case .clientAction(_, let action): action.kind == .menu ? "client.menu" : "client.action"
        case .acknowledged(_, let acknowledgement):
            acknowledgement.kind == .read ? "message.read" : "message.delivered"
        case .conversationClosed: "conversation.closed"
        case .sessionStatusChanged: "session.status_changed"
        case .reset: "reset"
        case .subscribed: "subscribed"
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
        case .messageDelta(let id, let delta):
            add("conversationId", .string(id))
            add("messageId", .string(delta.messageId))
            add("sequenceNumber", .number(JSONNumber(delta.sequenceNumber)))
            add("text", .string(delta.text))
        case .messageStreamValidated(let id, let validation):
            add("conversationId", .string(id))
            add("messageId", .string(validation.messageId))
            add("valid", .bool(validation.isValid))
            add("reason", validation.reason.map(JSONTree.string))
        case .typing(let id, let participant, let active):
            add("conversationId", .string(id))
            add("participant", .string(participant.description))
            add("active", .bool(active))
        case .participantChanged(let id, let changes):
            add("conversationId", .string(id))
            let list: [JSONTree] = changes.map { change in
                var object = JSONObject([
                    ("operation", .string(change.operation.description)), ("role", .string(change.role.description)),
                ])
                if let name = change.displayName { object["displayName"] = .string(name) }
                return .object(object)
            }
            add("changes", .array(list))
        case .routingResult(let id, let result):
            add("conversationId", .string(id))
            add("routingType", .string(result.routingType))
            add("failure", result.failure.map(JSONTree.string))
            add("failureReason", result.failureReason.map(JSONTree.string))
            add("estimatedWaitSeconds", number(result.estimatedWaitSeconds))
        case .routingWorkResult(let id, let result):
            add("conversationId", .string(id))
            add("workType", .string(result.workType.description))
        case .queuePosition(let id, let position):
            add("conversationId", .string(id))
            add("position", .number(JSONNumber(position)))
        case .progress(let id, let status):
            add("conversationId", .string(id))
            add("indicatorType", .string(status.kind.description))
            add("text", .string(status.text))
        case .clientAction(let id, let action):
            add("conversationId", .string(id))
            if !action.options.isEmpty {
                add(
                    "options",
                    .array(
                        action.options.map {
                            .object(JSONObject([("id", .string($0.id)), ("title", .string($0.title))]))
                        }))
            }
            add("payload", action.payload)
        case .acknowledged(let id, let acknowledgement):
            add("conversationId", .string(id))
            add("messageId", .string(acknowledgement.messageId))
            add("timestamp", number(acknowledgement.timestamp))
        case .conversationClosed(let id):
            add("conversationId", .string(id))
        case .sessionStatusChanged(let id, let status):
            add("conversationId", .string(id))
            add("status", .string(status))
        case .reset, .subscribed:
            break
        }
        return .object(JSONObject(members))
    }

    /// A text on one line: line breaks written `\n`.
    private static func oneLine(_ text: String) -> String {
        text.contains("\n")
            ? text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n") : text
    }

    /// One human-readable line: `ID TYPE conversation detail` (line breaks in texts written `\n`).
    public var summary: String {
        var line = "\(id ?? "-") \(typeName)"
        if let conversationId { line += " \(conversationId)" }
        switch kind {
        case .conversationCreated(let conversation), .conversationUpdated(let conversation):
            line += " status=\(conversation.status)"
            if let unread = conversation.unreadCount { line += " unread=\(unread)" }
        case .messageCreated(let message):
            line += " \(message.sender): \(Self.oneLine(message.text))"
            let content = message.content
            line += content.options.map { " [\($0.title)]" }.joined()
            line += content.attachments.map { " (file \($0.name) \($0.url))" }.joined()
            if content.completesStream { line += " (completes the stream)" }
        case .messageDelta(_, let delta):
            line += " \(delta.messageId) #\(delta.sequenceNumber) +\(Self.oneLine(delta.text))"
        case .messageStreamValidated(_, let validation):
            line += " \(validation.messageId) " + (validation.isValid ? "valid" : "withdrawn")
            if let reason = validation.reason { line += ": \(reason)" }
        case .typing(_, let participant, let active): line += " \(participant) \(active ? "started" : "stopped")"
        case .participantChanged(_, let changes):
            line += changes.map { change in
                let what =
                    switch change.operation {
                    case .added: "joined"
                    case .removed: "left"
                    case .updated: "changed"
                    case .other(let raw): raw
                    }
                return " \(change.displayName ?? change.role.description) \(what)"
            }
            .joined()
        case .routingResult(_, let result):
            line += " \(result.routingType)" + (result.failure.map { " failed: \($0)" } ?? "")
            if let seconds = result.estimatedWaitSeconds { line += " wait \(Int(seconds)) s" }
        case .routingWorkResult(_, let result): line += " \(result.workType)"
        case .queuePosition(_, let position): line += " position \(position)"
        case .progress(_, let status): line += " \(Self.oneLine(status.text))"
        case .clientAction(_, let action):
            line +=
                action.options.isEmpty
                ? " \(action.payload.jsonText)" : action.options.map { " [\($0.title)]" }.joined()
        case .acknowledged(_, let acknowledgement): line += " \(acknowledgement.messageId)"
        case .sessionStatusChanged(_, let status): line += " \(status)"
        case .conversationClosed, .reset, .subscribed: break
        }
        return line
    }
}
