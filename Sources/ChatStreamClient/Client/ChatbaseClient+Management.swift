// The conversation-management extensions of the project's own server (PROTOCOLS.md section 5):
// one conversation, client-made conversations, closing, tags, read state. Each answer is filed in
// the client's store.

import ChatStream
import Foundation

extension ChatbaseClient {
    /// One conversation. Throws ``APIError/isNotSupportedByServer`` when the server lacks the
    /// extension, an ``APIError/isNotFound`` error when there is no such conversation.
    ///
    /// ```swift
    /// let conversation = try await client.conversation(id: id)
    /// ```
    public func conversation(id: String) async throws -> Conversation {
        recorded(
            try WireDecoding.conversationEnvelope(
                await performForBytes("GET", ["conversations", id], extensionRoute: true)))
    }

    /// `conversation`, after filing it in the ``store``.
    private func recorded(_ conversation: Conversation) -> Conversation {
        record(conversation)
        return conversation
    }

    /// Creates a conversation with a client-made ID (a random lowercase UUID v4 unless `id` names
    /// one), before its first message (PROTOCOLS.md section 6). Idempotent: the same `id` again
    /// answers the same conversation, so it is retried like a GET. Throws
    /// ``APIError/isNotSupportedByServer`` when the server lacks the route (404, or 405 for a
    /// path it serves for listing only; then send with `conversationId: nil`), an ``APIError`` with status 409 when another caller owns `id`.
    ///
    /// ```swift
    /// let conversation = try await client.createConversation(title: "Trip to Rome")
    /// try await client.send("Plan three days", conversationId: conversation.id)
    /// ```
    @discardableResult
    public func createConversation(id: String? = nil, title: String? = nil) async throws -> Conversation {
        recorded(try await createdConversation(id: id, title: title))
    }

    /// ``createConversation(id:title:)`` without filing the answer in the store (the outbox files
    /// a conversation it created for a message once the message is taken).
    func createdConversation(id: String? = nil, title: String? = nil) async throws -> Conversation {
        var body = JSONObject()
        body["id"] = .string(id ?? ChatStreamPaths.newDeviceId())
        if let title { body["title"] = .string(title) }
        let bytes: [UInt8]
        do {
            bytes = try await performForBytes(
                "POST", ["conversations"], body: .object(body), extensionRoute: true, idempotent: true)
        } catch let error as APIError where error.statusCode == 405 {
            // The path exists for listing only: a server without client-created conversations.
            throw APIError.notSupportedByServer("POST conversations (client-created conversations)", status: 405)
        }
        return try WireDecoding.conversationEnvelope(bytes)
    }

    /// Ends a conversation (idempotent); later chats in it answer `403 CHAT_CONVERSATION_NOT_ONGOING`.
    @discardableResult
    public func closeConversation(id: String) async throws -> Conversation {
        recorded(
            try WireDecoding.conversationEnvelope(
                await performForBytes("POST", ["conversations", id, "close"], extensionRoute: true, idempotent: true)))
    }

    /// Replaces the caller's tags on a conversation (at most 25, each 1...64 characters).
    @discardableResult
    public func setTags(_ tags: [String], conversationId: String) async throws -> Conversation {
        guard tags.count <= 25 else {
            throw APIError.invalidArgument("tags", "hold at most 25 tags, got \(tags.count)")
        }
        if let bad = tags.first(where: { $0.isEmpty || $0.count > 64 }) {
            throw APIError.invalidArgument("tags", "must each be 1...64 characters: \"\(bad)\"")
        }
        return recorded(
            try WireDecoding.conversationEnvelope(
                await performForBytes(
                    "PUT", ["conversations", conversationId, "tags"],
                    body: ["tags": .array(tags.map(JSONTree.string))], extensionRoute: true)))
    }

    /// Marks the conversation read up to `messageId`; the answer carries the new `unreadCount`.
    @discardableResult
    public func markRead(conversationId: String, messageId: String) async throws -> Conversation {
        recorded(
            try WireDecoding.conversationEnvelope(
                await performForBytes(
                    "POST", ["conversations", conversationId, "read"], body: ["messageId": .string(messageId)],
                    extensionRoute: true, idempotent: true)))
    }
}
