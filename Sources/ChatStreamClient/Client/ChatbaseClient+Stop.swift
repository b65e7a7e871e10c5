// Stopping a reply (PROTOCOLS.md section 8): the server stops generating, keeps and stores the text
// so far, and ends every open stream of the reply with `abort` and a `finish` whose reason is
// "stop"; a send or retry reading that reply then returns that partial reply as its response.

import ChatStream

extension ChatbaseClient {
    /// Stops the reply `messageId` of conversation `conversationId` while it is generated (the AI
    /// SDK's `stop()`): the text so far stays, in history too, and a ``send(_:conversationId:clientMessageId:configure:)``
    /// streaming it returns it (``FinishReason/stop``). Stopping a finished reply changes nothing.
    /// Returns the reply as stored. ChatStream's own.
    ///
    /// ```swift
    /// try await client.stopReply(conversationId: id, messageId: replyId)
    /// ```
    /// - Throws: an ``APIError`` with ``APIError/isNotSupportedByServer`` when the server lacks the route (cancel
    ///   the send's task instead: what arrived stays in its ``ReplyStreamError/partialMessage``);
    ///   ``APIError`` 404 for a reply that is not the caller's.
    @discardableResult
    public func stopReply(conversationId: String, messageId: String) async throws -> Message? {
        let bytes = try await performForBytes(
            "POST", ["conversations", conversationId, "messages", messageId, "stop"], extensionRoute: true,
            idempotent: true)
        return try WireDecoding.parse(bytes) { root in try root["data"].flatMap(WireDecoding.message) }
    }
}
