/// An error from `HTTPServer` or `HTTPServerResponseWriter`.
///
/// Compare against the static values (`error == .connectionClosed`); the kinds may grow over time.
public struct HTTPServerError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Base: Hashable, Sendable {
        case alreadyStarted
        case addressResolution
        case socket
        case connectionClosed
        case invalidState
        case insecureBinding
    }

    private let base: Base
    /// A human-readable account of what went wrong (including `errno` text where there is one).
    public let message: String

    private init(_ base: Base, _ message: String) {
        self.base = base
        self.message = message
    }

    /// `HTTPServer.start()` was called on a server that is already running or was stopped.
    public static let alreadyStarted = HTTPServerError(.alreadyStarted, "the server was already started")
    /// The host could not be resolved to a local address.
    public static let addressResolution = HTTPServerError(.addressResolution, "cannot resolve the listen address")
    /// A socket call (socket, bind, listen, ...) failed.
    public static let socket = HTTPServerError(.socket, "socket operation failed")
    /// The peer closed the connection or the connection was aborted; nothing more can be written.
    public static let connectionClosed = HTTPServerError(.connectionClosed, "the connection is closed")
    /// The server was asked to listen beyond loopback in development mode (no JWT secret), which would
    /// let anyone who reaches it claim any user.
    public static let insecureBinding = HTTPServerError(
        .insecureBinding, "refusing to listen beyond loopback without a JWT secret")
    /// The response writer was used out of order (for example `write` before `startStream`).
    public static let invalidState = HTTPServerError(.invalidState, "response writer used out of order")

    /// The same kind of error with a more specific message.
    func with(message: String) -> HTTPServerError { HTTPServerError(base, message) }

    /// Errors of the same kind are equal whatever their messages say.
    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool { lhs.base == rhs.base }

    /// Hashes the kind only, matching `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(base) }

    /// The message.
    public var description: String { message }
}
