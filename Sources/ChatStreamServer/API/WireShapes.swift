// WireShapes: conversations and messages as the API sends them (PROTOCOLS.md sections 1 and 5).

import ChatStream

/// Builds the JSON the API answers with from store records.
enum WireShapes {
    /// A history message: `{"id","role","parts","createdAt","feedback":null,"metadata":{"score"}}`.
    static func message(_ message: MessageRecord) -> JSONTree {
        [
            "id": .string(message.id), "role": .string(message.role), "parts": .array(message.parts),
            "createdAt": .number(JSONNumber(message.createdAt)), "feedback": nil,
            "metadata": ["score": message.isFromUser ? 0 : 1],
        ]
    }

    /// A conversation; with the extensions, also the caller's `tags`, `unreadCount` and the `lastMessage`.
    static func conversation(_ conversation: ConversationRecord, caller: Caller, extensions: Bool) -> JSONTree {
        self.conversation(conversation, identity: caller.identity, extensions: extensions)
    }

    /// A conversation with the `tags` and `unreadCount` of `identity` (see ``Caller/identity``).
    static func conversation(_ conversation: ConversationRecord, identity: String, extensions: Bool) -> JSONTree {
        var object = JSONObject()
        object["id"] = .string(conversation.id)
        object["title"] = conversation.title.map { .string($0) } ?? .null
        object["createdAt"] = .number(JSONNumber(conversation.createdAt))
        object["updatedAt"] = .number(JSONNumber(conversation.updatedAt))
        object["userId"] = conversation.ownerUser.map { .string($0) } ?? .null
        object["status"] = .string(conversation.status)
        if extensions {
            object["tags"] = .array((conversation.tags[identity] ?? []).map { .string($0) })
            object["unreadCount"] = .number(JSONNumber(conversation.unreadCount(for: identity)))
            object["lastMessage"] = conversation.visibleMessages.last.map(message) ?? .null
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
