// The Chatbase SDK's declarations with exactly their documented parameter lists.
//
// ChatStream's own versions of these calls add defaulted parameters (`clientMessageId:`,
// `source:`). A call reads the same either way, but a reference to a function by its full name
// (`client.send(_:conversationId:configure:)`) needs a declaration with exactly those labels, so
// each documented one is here too, forwarding to the extended one. Swift prefers the declaration
// that needs fewer defaulted arguments filled in, so ordinary calls stay unambiguous.

import Foundation

extension ChatbaseClient {
    /// Sends `message` and streams the reply into `configure`'s callbacks, exactly as the Chatbase
    /// SDK declares it: ``send(_:conversationId:clientMessageId:configure:)`` with a fresh
    /// `clientMessageId`.
    ///
    /// ```swift
    /// let send = client.send(_:conversationId:configure:)
    /// let response = try await send("Hello", nil) { callbacks in
    ///     callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
    /// }
    /// ```
    @discardableResult
    public func send(
        _ message: String, conversationId: String? = nil,
        configure: @Sendable (inout StreamCallbacks) -> Void = { _ in }
    ) async throws -> ChatResponse {
        try await send(message, conversationId: conversationId, clientMessageId: nil, configure: configure)
    }

    /// Sends `message` without streaming, exactly as the Chatbase SDK declares it:
    /// ``sendNonStreaming(_:conversationId:clientMessageId:)`` with a fresh `clientMessageId`.
    @discardableResult
    public func sendNonStreaming(_ message: String, conversationId: String? = nil) async throws -> ChatResponse {
        try await sendNonStreaming(message, conversationId: conversationId, clientMessageId: nil)
    }

    /// A page of the caller's conversations from the server, exactly as the Chatbase SDK declares
    /// it: ``listConversations(cursor:limit:source:)`` with ``HistorySource/network``.
    ///
    /// ```swift
    /// let list = client.listConversations(cursor:limit:)
    /// let page = try await list(nil, 20)
    /// ```
    public func listConversations(cursor: String? = nil, limit: Int? = nil) async throws
        -> PaginatedResponse<Conversation>
    {
        try await listConversations(cursor: cursor, limit: limit, source: .network)
    }

    /// A page of a conversation's messages from the server, exactly as the Chatbase SDK declares
    /// it: ``listMessages(conversationId:cursor:limit:source:)`` with ``HistorySource/network``.
    public func listMessages(conversationId: String, cursor: String? = nil, limit: Int? = nil) async throws
        -> PaginatedResponse<Message>
    {
        try await listMessages(conversationId: conversationId, cursor: cursor, limit: limit, source: .network)
    }
}
