/// What happens to a chat message the server could not be reached for. ChatStream's own: the
/// Chatbase SDK has no outbox, so its documented initialiser uses ``off``.
///
/// ```swift
/// let client = ChatbaseClient(
///     agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787")!, outbox: .automatic)
/// ```
public enum OutboxPolicy: String, Sendable, Hashable, CaseIterable {
    /// No outbox: a send that fails throws, and nothing is sent later unless the app sends again.
    case off
    /// Each message is written to the client's ``HistoryStore`` outbox before it goes; one the
    /// server could not be reached for stays pending until ``ChatbaseClient/flushOutbox()``.
    case manual
    /// As ``manual``, and pending messages also go by themselves once a request reaches the
    /// server again.
    case automatic
}
