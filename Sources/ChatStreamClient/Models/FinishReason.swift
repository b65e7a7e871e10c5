import ChatStream

/// Why a reply ended, as the Chatbase SDK documents it.
///
/// ```swift
/// let response = try await client.sendNonStreaming("Hello")
/// if response.finishReason == .error { print("the agent failed") }
/// ```
///
/// The core's finer `StreamFinishReason` (with `length`, `content-filter`, `other`) is
/// ``ChatResponse/streamFinishReason``.
public enum FinishReason: String, Sendable, Hashable, Codable {
    /// The agent finished its reply.
    case stop
    /// The reply ended in an error.
    case error
    /// The reply ended asking for tools.
    case toolCalls = "tool-calls"

    /// The documented form of a core reason.
    ///
    /// What it drops: `length`, `content-filter`, `other` and a missing reason all read as
    /// ``stop`` (the reply ended without an error and without asking for tools).
    public init(_ reason: StreamFinishReason?) {
        switch reason {
        case .error: self = .error
        case .toolCalls: self = .toolCalls
        case .stop, .length, .contentFilter, .other, nil: self = .stop
        }
    }
}
