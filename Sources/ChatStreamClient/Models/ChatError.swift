// ChatError: problems the client finds on its own, in the shape the Chatbase SDK documents. Its
// cases are exactly the SDK's, so an exhaustive `switch` written for the SDK compiles; what only
// ChatStream checks is said inside them: a local store (the stored identity, the history) that
// cannot be read is `decodingFailed` naming the store, the file and the reason.

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
///
/// ChatStream keeps the SDK's four cases and adds none. A stored identity that cannot be read
/// (see <doc:Identity>) or a local history store that fails is ``decodingFailed(_:)``, its text
/// starting `stored identity: ` or `local history store: ` and naming the file (or Keychain
/// item), what is wrong and where, and how to recover.
public enum ChatError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The reply carried nothing the client could use (no conversation to continue in).
    case noContent
    /// A response body, or a local store (`stored identity: `, `local history store: `), could not
    /// be read; the text says what and where (byte offset, field, file).
    case decodingFailed(String)
    /// A request URL could not be built from the base URL.
    case invalidURL(String)
    /// The agent still asked for tools after `limit` tool rounds (``ChatbaseClient/maxToolLoopSteps``).
    case toolLoopLimitExceeded(limit: Int)

    /// The text that starts a ``decodingFailed(_:)`` about the stored identity.
    static let storedIdentity = "stored identity: "
    /// The text that starts a ``decodingFailed(_:)`` about the local history store.
    static let localHistoryStore = "local history store: "

    /// The identity store's `error` (its file or Keychain item, what is wrong, where), as the
    /// client throws it.
    static func identity(_ error: IdentityStoreError) -> ChatError { .decodingFailed(storedIdentity + "\(error)") }

    /// The history store failing (`detail` names the file and SQLite's reason), as the client throws it.
    static func store(_ detail: String) -> ChatError { .decodingFailed(localHistoryStore + detail) }

    /// A sentence for people.
    public var errorDescription: String? {
        switch self {
        case .noContent: return "The reply had no content the client could use."
        case .decodingFailed(let detail):
            if detail.hasPrefix(Self.storedIdentity) {
                return "The stored identity cannot be used: " + detail.dropFirst(Self.storedIdentity.count)
            }
            if detail.hasPrefix(Self.localHistoryStore) {
                return "The local history store failed: " + detail.dropFirst(Self.localHistoryStore.count)
            }
            return "The response could not be decoded: \(detail)"
        case .invalidURL(let url): return "Not a valid URL: \(url)"
        case .toolLoopLimitExceeded(let limit): return "The agent still asked for tools after \(limit) tool rounds."
        }
    }

    /// The same sentence (what the CLI prints).
    public var description: String { errorDescription ?? "chat error" }
}
