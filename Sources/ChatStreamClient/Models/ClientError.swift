import Foundation

/// ChatStream's former error for a request refused before sending it, or one the server does not
/// implement. The client no longer throws it: every call throws one of the Chatbase SDK's two
/// error types, an argument refused before sending being the API's `400 VALIDATION_INVALID_BODY`
/// (an ``APIError``), a route the server lacks an ``APIError`` with
/// ``APIError/isNotSupportedByServer``, a failing local store a ``ChatError/decodingFailed(_:)``
/// naming it. Kept so code that names it still compiles.
///
/// ```swift
/// let former = ClientError(.notSupportedByServer, "POST conversations")
/// print(former)   // not supported by this server: POST conversations
/// ```
public struct ClientError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure. New kinds may be added; compare with the static values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidArgument = "invalid argument", notSupportedByServer = "not supported by server"
            case storeFailed = "local store failed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// An argument was rejected before any request was made.
        public static let invalidArgument = Kind(.invalidArgument)
        /// The server does not implement this route or filter.
        public static let notSupportedByServer = Kind(.notSupportedByServer)
        /// The local ``HistoryStore`` could not be opened, read or written.
        public static let storeFailed = Kind(.storeFailed)
        /// The kind's name.
        public var description: String { base.rawValue }
    }

    /// The class of failure.
    public let kind: Kind
    /// What happened, for people.
    public let message: String

    /// An error of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A sentence for people.
    public var errorDescription: String? {
        kind == .notSupportedByServer ? "This server does not support \(message)." : message
    }

    /// `<kind>: <message>` (what the CLI prints).
    public var description: String {
        kind == .notSupportedByServer ? "not supported by this server: \(message)" : "\(kind): \(message)"
    }
}
