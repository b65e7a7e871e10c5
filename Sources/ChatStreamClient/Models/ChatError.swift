// ChatError: every way a ChatClient call can fail, as one type to catch.

import ChatStream
import Foundation

/// Why a ``ChatClient`` call failed: a ``Kind`` to branch on, with the details of that kind.
///
/// ```swift
/// do {
///     _ = try await client.sendMessage("hi", conversationId: id)
/// } catch let error as ChatError where error.isRateLimited {
///     try await Task.sleep(for: .seconds(error.retryAfter ?? 1))
/// } catch let error as ChatError where error.isConversationNotOngoing {
///     client.newConversation()
/// }
/// ```
public struct ChatError: Error, Sendable, CustomStringConvertible {
    /// The class of failure. New kinds may be added; compare with the static values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case network, http, decoding, stream, invalidArgument = "invalid argument"
            case notSupportedByServer = "not supported by server", toolLoopLimitExceeded = "tool loop limit exceeded"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// No answer could be had from the server (see ``ChatError/transportError``).
        public static let network = Kind(.network)
        /// The server answered with a non-2xx status (see ``ChatError/status``, ``ChatError/code``).
        public static let http = Kind(.http)
        /// A response body could not be decoded (see ``ChatError/byteOffset``).
        public static let decoding = Kind(.decoding)
        /// A streamed reply was cut, malformed or carried an error (see ``ChatError/streamError``
        /// and the ``ChatError/partialMessage`` that did arrive).
        public static let stream = Kind(.stream)
        /// An argument was rejected before any request was made.
        public static let invalidArgument = Kind(.invalidArgument)
        /// The server does not implement this (conversation-management) route.
        public static let notSupportedByServer = Kind(.notSupportedByServer)
        /// The tool loop ran ``ChatClient/maxToolLoopSteps`` rounds and the agent still asked for tools.
        public static let toolLoopLimitExceeded = Kind(.toolLoopLimitExceeded)
        public var description: String { base.rawValue }
    }

    /// The class of failure.
    public var kind: Kind
    /// What happened, for people.
    public var message: String
    /// The HTTP status, for ``Kind/http`` and ``Kind/notSupportedByServer``.
    public var status: Int?
    /// The API's error code (`CHAT_CONVERSATION_NOT_ONGOING`, or `UNKNOWN` for an unparseable body).
    public var code: String?
    /// The API's error details.
    public var details: [String: String]
    /// Seconds to wait before retrying, from the `Retry-After` header.
    public var retryAfter: TimeInterval?
    /// Where decoding failed, in bytes from the start of the body, for ``Kind/decoding``.
    public var byteOffset: Int?
    /// The stream's error, for ``Kind/stream``.
    public var streamError: StreamError?
    /// What arrived of a streamed reply before it failed, for ``Kind/stream``.
    public var partialMessage: AssembledMessage?
    /// The transport's error, for ``Kind/network``.
    public var transportError: TransportError?

    /// An error of `kind`.
    public init(
        _ kind: Kind, _ message: String, status: Int? = nil, code: String? = nil, details: [String: String] = [:],
        retryAfter: TimeInterval? = nil, byteOffset: Int? = nil, streamError: StreamError? = nil,
        partialMessage: AssembledMessage? = nil, transportError: TransportError? = nil
    ) {
        self.kind = kind
        self.message = message
        self.status = status
        self.code = code
        self.details = details
        self.retryAfter = retryAfter
        self.byteOffset = byteOffset
        self.streamError = streamError
        self.partialMessage = partialMessage
        self.transportError = transportError
    }

    /// `429` / `RATE_LIMIT_TOO_MANY_REQUESTS`: wait ``retryAfter`` and try again.
    public var isRateLimited: Bool { status == 429 || code == "RATE_LIMIT_TOO_MANY_REQUESTS" }
    /// `403 CHAT_CONVERSATION_NOT_ONGOING`: the conversation is ended or taken over.
    public var isConversationNotOngoing: Bool { code == "CHAT_CONVERSATION_NOT_ONGOING" }
    /// A `404` of any code.
    public var isNotFound: Bool { status == 404 }
    /// `402`: the user's or the agent's credits are used up.
    public var isCreditsExhausted: Bool {
        status == 402 || code == "CHAT_CREDITS_EXHAUSTED" || code == "CHAT_AGENT_CREDITS_EXHAUSTED"
    }
    /// Whether retrying the same request may succeed (network failures, 5xx, 429).
    public var isTransient: Bool {
        kind == .network || (kind == .http && ((status ?? 0) >= 500 || status == 429))
    }

    /// `<STATUS> <CODE>: <message>` for HTTP errors; `<kind>: <message>` otherwise.
    public var description: String {
        if kind == .http, let status { return "\(status) \(code ?? "UNKNOWN"): \(message)" }
        if kind == .notSupportedByServer { return "not supported by this server: \(message)" }
        if kind == .decoding, let byteOffset { return "decoding failed at byte \(byteOffset): \(message)" }
        return "\(kind): \(message)"
    }
}

extension ChatError {
    /// Turns anything a request threw into a ChatError; cancellation stays `CancellationError`.
    static func wrapping(_ error: any Error) -> any Error {
        switch error {
        case let error as ChatError: return error
        case is CancellationError: return error
        case let error as TransportError:
            if error.kind == .cancelled { return CancellationError() }
            return ChatError(.network, error.message, transportError: error)
        case let error as JSONError:
            return ChatError(.decoding, error.message, byteOffset: error.byteOffset)
        case let error as StreamError:
            return ChatError(.stream, error.description, streamError: error)
        default:
            return ChatError(.network, "\(error)")
        }
    }

    /// Reads `Retry-After`: delay seconds or an HTTP date.
    static func parseRetryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
