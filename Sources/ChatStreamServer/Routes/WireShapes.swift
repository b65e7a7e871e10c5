// WireShapes: conversations and messages as the API sends them (PROTOCOLS.md sections 1 and 5).

import ChatStream

/// Builds the JSON the API answers with from store records.
enum WireShapes {
    /// A history message: `{"id","role","parts","createdAt","feedback":null,"metadata":{"score"}}`, and
    /// `clientMessageId` when the client sent the message with one; a reply that was stopped has
    /// `metadata.aborted: true`, one cut by a server restart `metadata.interrupted: true`.
    static func message(_ message: MessageRecord) -> JSONTree {
        var object = JSONObject()
        object.reserveCapacity(7)
        object["id"] = .string(message.id)
        object["role"] = .string(message.role)
        object["parts"] = .array(message.parts)
        object["createdAt"] = .number(JSONNumber(message.createdAt))
        object["feedback"] = .null
        var metadata = JSONObject([("score", message.isFromUser ? 0 : 1)])
        switch message.replyState {
        case .stopped: metadata["aborted"] = true
        case .interrupted: metadata["interrupted"] = true
        case .generating, nil: break
        }
        object["metadata"] = .object(metadata)
        if let clientMessageId = message.clientMessageId { object["clientMessageId"] = .string(clientMessageId) }
        return .object(object)
    }

    /// A conversation's last message as lists show it: the history shape with one text part holding
    /// the start of its text, and `"truncated": true` when that was cut.
    static func preview(_ preview: MessagePreview) -> JSONTree {
        var object = JSONObject()
        object.reserveCapacity(8)
        object["id"] = .string(preview.id)
        object["role"] = .string(preview.role)
        object["parts"] = preview.text.isEmpty ? [] : [["type": "text", "text": .string(preview.text)]]
        object["createdAt"] = .number(JSONNumber(preview.createdAt))
        object["feedback"] = .null
        object["metadata"] = ["score": preview.role == "user" ? 0 : 1]
        if let clientMessageId = preview.clientMessageId { object["clientMessageId"] = .string(clientMessageId) }
        if preview.truncated { object["truncated"] = true }
        return .object(object)
    }

    /// A conversation; with the extensions, also the caller's `tags`, `unreadCount` and the `lastMessage`.
    static func conversation(_ view: ConversationView, extensions: Bool) -> JSONTree {
        let conversation = view.record
        var object = JSONObject()
        object.reserveCapacity(extensions ? 9 : 6)
        object["id"] = .string(conversation.id)
        object["title"] = conversation.title.map { .string($0) } ?? .null
        object["createdAt"] = .number(JSONNumber(conversation.createdAt))
        object["updatedAt"] = .number(JSONNumber(conversation.updatedAt))
        object["userId"] = conversation.ownerUser.map { .string($0) } ?? .null
        object["status"] = .string(conversation.status)
        if extensions {
            object["tags"] = .array(view.tags.map { .string($0) })
            object["unreadCount"] = .number(JSONNumber(view.unreadCount))
            object["lastMessage"] = view.lastMessage.map(preview) ?? .null
        }
        return .object(object)
    }

    /// A page: `{"data":[...],"pagination":{"cursor","hasMore","total"}}`.
    static func page(_ items: [JSONTree], cursor: String?, hasMore: Bool, total: Int) -> JSONTree {
        [
            "data": .array(items),
            "pagination": [
                "cursor": cursor.map { .string($0) } ?? .null, "hasMore": .bool(hasMore),
                "total": .number(JSONNumber(total)),
            ],
        ]
    }
}
