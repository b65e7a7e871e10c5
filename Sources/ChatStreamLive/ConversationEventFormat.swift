import ChatStream

/// The wire formats a ``ConversationEventDecoder`` reads.
public enum ConversationEventFormat: String, Sendable, Hashable, CaseIterable {
    /// The home server's `GET /agents/{agentId}/events` (PROTOCOLS.md section 6).
    case home
    /// Salesforce Messaging for In-App and Web, `GET /eventrouter/v1/sse` (PROTOCOLS.md section 7).
    case salesforceMessaging = "salesforce-messaging"
}
