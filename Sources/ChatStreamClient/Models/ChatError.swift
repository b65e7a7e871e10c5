// ChatError: problems the client finds on its own, in the shape the Chatbase SDK documents.

import Foundation

/// A problem the client found on its own, before or instead of a server reply.
///
/// ```swift
/// do {
///     _ = try await client.send("Plan my trip")
/// } catch ChatError.toolLoopLimitExceeded(let limit) {
///     print("gave up after \(limit) tool rounds")
/// }
/// ```
public enum ChatError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The reply carried nothing the client could use (no conversation to continue in).
    case noContent
    /// A response body could not be read; the text says what and where (byte offset, field).
    case decodingFailed(String)
    /// A request URL could not be built from the base URL.
    case invalidURL(String)
    /// The agent still asked for tools after `limit` tool rounds (``ChatbaseClient/maxToolLoopSteps``).
    case toolLoopLimitExceeded(limit: Int)

    /// A sentence for people.
    public var errorDescription: String? {
        switch self {
        case .noContent: return "The reply had no content the client could use."
        case .decodingFailed(let detail): return "The response could not be decoded: \(detail)"
        case .invalidURL(let url): return "Not a valid URL: \(url)"
        case .toolLoopLimitExceeded(let limit): return "The agent still asked for tools after \(limit) tool rounds."
        }
    }

    /// The same sentence (what the CLI prints).
    public var description: String { errorDescription ?? "chat error" }
}
