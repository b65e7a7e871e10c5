// APIError: network problems and the API's error answers, in the shape the Chatbase SDK documents.

import ChatStream
import Foundation

/// The API's error body `{"error":{"code","message","details"}}`.
///
/// ```swift
/// do {
///     _ = try await client.send("Hi", conversationId: id)
/// } catch APIError.httpError(let status, let detail) where detail.code == "CHAT_CONVERSATION_NOT_ONGOING" {
///     print("conversation closed (\(status))")
/// }
/// ```
public struct APIErrorDetail: Decodable, Sendable, Hashable {
    /// The error code (`UNKNOWN` when the body could not be read): check this, not the message.
    public let code: String
    /// A description for developers.
    public let message: String
    /// Which fields were wrong, when the server says.
    public let details: [String: String]?
    /// Seconds to wait before retrying, from the answer's `Retry-After` header. ChatStream's own.
    public let retryAfter: TimeInterval?
    /// For an error the server sent inside a streamed reply (an `error` chunk after the reply
    /// began): the reply as far as it came, its text so far included. ChatStream's own.
    public let partialReply: AssembledMessage?
    /// What the client found beside the server's answer (nil: the answer as the server gave
    /// it). ChatStream's own.
    public let finding: Finding?

    /// What the client found beside the server's answer. ChatStream's own.
    public enum Finding: Sendable, Hashable {
        /// The client refused the request before sending it (an argument out of range): nothing
        /// was sent, and the error is the one the API answers such a request with.
        case refusedBeforeSending
        /// The server lacks this route or filter (a conversation-management extension, live
        /// events); the text names it.
        case notSupportedByServer(String)
    }

    /// An error body.
    public init(
        code: String, message: String, details: [String: String]? = nil, retryAfter: TimeInterval? = nil,
        partialReply: AssembledMessage? = nil, finding: Finding? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.retryAfter = retryAfter
        self.partialReply = partialReply
        self.finding = finding
    }

    private enum CodingKeys: String, CodingKey {
        case code, message, details
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .message) ?? ""
        details = try container.decodeIfPresent([String: String].self, forKey: .details)
        retryAfter = nil
        partialReply = nil
        finding = nil
    }

    /// The code a model error inside a streamed reply carries when the server names none, the one
    /// the API answers with when the model fails before the reply begins.
    public static let streamingErrorCode = "CHAT_STREAMING_ERROR"
    /// The code of a route or filter the server lacks (``APIError/isNotSupportedByServer``).
    public static let notSupportedCode = "NOT_SUPPORTED_BY_SERVER"
}

/// A network problem, or an error answer from the server.
///
/// ```swift
/// do {
///     _ = try await client.send("Hi", conversationId: id)
/// } catch let error as APIError where error.isRateLimited {
///     try await Task.sleep(for: .seconds(error.retryAfter ?? 1))
/// } catch let error as APIError {
///     print(error.apiCode ?? "network", error.localizedDescription)
/// }
/// ```
///
/// A streamed reply that breaks after it began keeps what arrived (``replyStreamError``): a
/// connection that broke is a ``networkError(_:)`` holding a ``ReplyStreamError``; an error the
/// model reported inside the stream is an ``httpError(statusCode:detail:)`` of status 500 with the
/// server's code (`CHAT_STREAMING_ERROR` when it names none, as when the model fails before the
/// reply begins) and the reply so far in ``APIErrorDetail/partialReply``.
public enum APIError: Error, LocalizedError, CustomStringConvertible {
    /// The server's answer was not an HTTP response.
    case invalidResponse
    /// The server answered with an error status; `detail` holds its code.
    case httpError(statusCode: Int, detail: APIErrorDetail)
    /// The request did not get through (the underlying `URLError`, or a ``TransportError`` when
    /// there is none, as for the client's own idle timeout), or its reply broke off (a
    /// ``ReplyStreamError``).
    case networkError(any Error)

    /// The API's error code of an ``httpError(statusCode:detail:)``.
    public var apiCode: String? {
        if case .httpError(_, let detail) = self { return detail.code }
        return nil
    }

    /// The HTTP status of an ``httpError(statusCode:detail:)``.
    public var statusCode: Int? {
        if case .httpError(let status, _) = self { return status }
        return nil
    }

    /// Seconds to wait before retrying, from `Retry-After`. ChatStream's own.
    public var retryAfter: TimeInterval? {
        if case .httpError(_, let detail) = self { return detail.retryAfter }
        return nil
    }

    /// The broken reply, with what arrived of it: the ``ReplyStreamError`` of a ``networkError(_:)``,
    /// or one made from the ``APIErrorDetail/partialReply`` of a model error inside the stream
    /// (its stream error of kind `remote`, with the server's code and message). ChatStream's own.
    public var replyStreamError: ReplyStreamError? {
        switch self {
        case .networkError(let error): return error as? ReplyStreamError
        case .httpError(_, let detail):
            guard let partial = detail.partialReply else { return nil }
            return ReplyStreamError(
                streamError: StreamError(.remote, message: detail.message, code: detail.code), partialMessage: partial)
        case .invalidResponse: return nil
        }
    }

    /// `429` / `RATE_LIMIT_TOO_MANY_REQUESTS`: wait ``retryAfter`` and try again.
    public var isRateLimited: Bool { statusCode == 429 || apiCode == "RATE_LIMIT_TOO_MANY_REQUESTS" }
    /// `403 CHAT_CONVERSATION_NOT_ONGOING`: the conversation is ended or taken over.
    public var isConversationNotOngoing: Bool { apiCode == "CHAT_CONVERSATION_NOT_ONGOING" }
    /// A `404` of any code (a route the server lacks included: see ``isNotSupportedByServer``).
    public var isNotFound: Bool { statusCode == 404 }
    /// The server lacks the route or filter (a conversation-management extension, live events):
    /// code `NOT_SUPPORTED_BY_SERVER`, the server's status (404 or 405; 501 when it answered as if
    /// the filters were not there). ChatStream's own.
    public var isNotSupportedByServer: Bool {
        if case .httpError(_, let detail) = self, case .notSupportedByServer? = detail.finding { return true }
        return false
    }

    /// An argument the client refused before sending: `400 VALIDATION_INVALID_BODY`, as the API
    /// answers it, `field` in the details with `reason`.
    static func invalidArgument(_ field: String, _ reason: String) -> APIError {
        .httpError(
            statusCode: 400,
            detail: APIErrorDetail(
                code: "VALIDATION_INVALID_BODY", message: "\(field) \(reason)", details: [field: reason],
                finding: .refusedBeforeSending))
    }

    /// The server lacks `feature` (it answered `status`; 501 when it answered as if it had it).
    static func notSupportedByServer(_ feature: String, status: Int = 501) -> APIError {
        .httpError(
            statusCode: status,
            detail: APIErrorDetail(
                code: APIErrorDetail.notSupportedCode, message: "this server does not support \(feature)",
                finding: .notSupportedByServer(feature)))
    }
    /// `402`: the workspace's or the agent's credits are used up.
    public var isCreditsExhausted: Bool {
        statusCode == 402 || apiCode == "CHAT_CREDITS_EXHAUSTED" || apiCode == "CHAT_AGENT_CREDITS_EXHAUSTED"
    }
    /// Whether the same request may succeed later (no connection, 5xx, 429; not a reply that broke
    /// or failed after it began).
    public var isTransient: Bool {
        switch self {
        case .invalidResponse: return false
        case .httpError(let status, let detail):
            return detail.partialReply == nil && detail.finding == nil && (status >= 500 || status == 429)
        case .networkError(let error): return !(error is ReplyStreamError)
        }
    }

    /// A sentence for people: the server's message with its status and code, or what went wrong
    /// with the connection.
    public var errorDescription: String? {
        switch self {
        case .invalidResponse:
            return "The server's answer was not a valid HTTP response."
        case .httpError(_, let detail) where isNotSupportedByServer:
            if case .notSupportedByServer(let feature)? = detail.finding {
                return "This server does not support \(feature)."
            }
            return detail.message
        case .httpError(let status, let detail):
            var text = detail.message.isEmpty ? "The server answered HTTP \(status)" : detail.message
            if let field = detail.details?.sorted(by: { $0.key < $1.key }).first {
                text += " (\(field.key): \(field.value))"
            }
            return text + " [HTTP \(status) \(detail.code)]"
        case .networkError(let error):
            if let error = error as? TransportError { return "The request failed: \(error.message)" }
            if error is ReplyStreamError { return error.localizedDescription }
            return "The request failed: \(error.localizedDescription)"
        }
    }

    /// `<STATUS> <CODE>: <message>` for HTTP errors (what the CLI prints); `network: <message>`
    /// otherwise.
    public var description: String {
        switch self {
        case .invalidResponse: return "invalid response: the server's answer was not HTTP"
        case .httpError(_, let detail) where isNotSupportedByServer:
            if case .notSupportedByServer(let feature)? = detail.finding {
                return "not supported by this server: \(feature)"
            }
            return detail.message
        case .httpError(let status, let detail):
            return "\(status) \(detail.code): \(detail.message.isEmpty ? "HTTP \(status)" : detail.message)"
        case .networkError(let error as TransportError): return "network: \(error.message)"
        case .networkError(let error as ReplyStreamError): return "\(error)"
        case .networkError(let error): return "network: \(error.localizedDescription)"
        }
    }
}
