/// Why an ``HTTPTransport`` request failed: a ``Kind`` to branch on and a message for people.
///
/// ```swift
/// do {
///     _ = try await transport.send(request)
/// } catch let error as TransportError where error.kind == .timedOut {
///     print("no answer in time:", error)
/// }
/// ```
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The class of failure. New kinds may be added; compare with the static values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case connectionFailed, connectionLost, timedOut, cancelled, invalidResponse, bodyTooLarge
            case headerTooLarge, redirectRefused
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No connection could be made (refused, unreachable, DNS, TLS).
        public static let connectionFailed = Kind(.connectionFailed)
        /// The connection broke after the request started (for example a response cut mid-body).
        public static let connectionLost = Kind(.connectionLost)
        /// Nothing arrived for the request's idle timeout.
        public static let timedOut = Kind(.timedOut)
        /// The request was cancelled (task cancellation or the body consumer stopping).
        public static let cancelled = Kind(.cancelled)
        /// The server's answer was not a valid HTTP response.
        public static let invalidResponse = Kind(.invalidResponse)
        /// ``HTTPBody/collect(upTo:)`` read more than its limit, or a compressed body decoded to more
        /// than ``URLSessionTransport/Limits/maxDecodedBodyBytes``.
        public static let bodyTooLarge = Kind(.bodyTooLarge)
        /// The response head was larger than ``URLSessionTransport/Limits/maxResponseHeaderBytes`` (or
        /// than the HTTP library's own limit on one header line).
        public static let headerTooLarge = Kind(.headerTooLarge)
        /// The server redirected to a URL that ``URLSessionTransport/RedirectPolicy`` does not follow
        /// (by default: another origin).
        public static let redirectRefused = Kind(.redirectRefused)

        /// The kind's name.
        public var description: String { "\(base)" }
    }

    /// The class of failure.
    public let kind: Kind
    /// What happened, for people.
    public let message: String
    /// The error that caused this one (usually a `URLError`), if any.
    public let underlyingError: (any Error & Sendable)?

    /// An error of `kind`.
    public init(_ kind: Kind, _ message: String, underlyingError: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.message = message
        self.underlyingError = underlyingError
    }

    /// `kind: message`.
    public var description: String { "\(kind): \(message)" }
}
