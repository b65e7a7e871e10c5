// APIError: an error answer of the chat API, `{"error":{"code","message","details"?}}` with its status.

import ChatStream

/// An error the API answers with; handlers throw it and the router writes it.
struct APIError: Error, Sendable {
    var status: Int
    var code: String
    var message: String
    var details: [String: String]? = nil
    var headers: [(String, String)] = []

    /// The error body in the wire shape.
    var jsonValue: JSONTree {
        var error = JSONObject()
        error["code"] = .string(code)
        error["message"] = .string(message)
        if let details {
            error["details"] = .object(
                JSONObject(details.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        }
        return ["error": .object(error)]
    }

    static func invalidJSON(_ message: String) -> APIError {
        APIError(status: 400, code: "VALIDATION_INVALID_JSON", message: message)
    }
    static func invalidBody(_ message: String, field: String? = nil) -> APIError {
        APIError(
            status: 400, code: "VALIDATION_INVALID_BODY", message: message, details: field.map { ["field": $0] })
    }
    static func validation(_ code: String, _ message: String) -> APIError {
        APIError(status: 400, code: code, message: message)
    }
    static func invalidFault(_ message: String) -> APIError {
        APIError(status: 400, code: "VALIDATION_INVALID_FAULT", message: message)
    }
    /// 401 for a user token that is not a valid JWT (or, with a secret, not validly signed or not current).
    static func invalidJWT(_ failure: JWTVerifier.Failure) -> APIError {
        let reason: String
        switch failure {
        case .malformed: reason = "the token is not a valid JWT"
        case .algorithm: reason = "the token is not signed with HS256"
        case .signature: reason = "the token's signature does not verify"
        case .expired: reason = "the token has expired"
        case .notYetValid: reason = "the token is not valid yet"
        case .noSubject: reason = "the token names no subject"
        }
        return APIError(status: 401, code: "AUTH_INVALID_JWT", message: reason)
    }
    static let notOngoing = APIError(
        status: 403, code: "CHAT_CONVERSATION_NOT_ONGOING", message: "the conversation no longer takes messages")
    static let conversationConflict = APIError(
        status: 409, code: "RESOURCE_CONVERSATION_CONFLICT",
        message: "this conversation id is already in use")
    static let conversationNotFound = APIError(
        status: 404, code: "RESOURCE_CONVERSATION_NOT_FOUND", message: "no such conversation")
    static let toolCallNotFound = APIError(
        status: 404, code: "RESOURCE_TOOL_CALL_NOT_FOUND", message: "no such tool call in this conversation")
    static let messageNotFound = APIError(
        status: 404, code: "RESOURCE_MESSAGE_NOT_FOUND", message: "no such message in this conversation")
    static let retryMessageNotFound = APIError(
        status: 404, code: "CHAT_RETRY_MESSAGE_NOT_FOUND", message: "no such assistant message to retry")
    static let retryNoUserMessage = APIError(
        status: 400, code: "CHAT_RETRY_NO_USER_MESSAGE", message: "no user message precedes that reply")
    static func agentNotFound(_ id: String) -> APIError {
        APIError(status: 404, code: "AGENT_NOT_FOUND", message: "no agent \"\(id)\" on this server")
    }
    static let notFound = APIError(status: 404, code: "NOT_FOUND", message: "no such route")
    static func methodNotAllowed(_ allowed: String) -> APIError {
        APIError(
            status: 405, code: "METHOD_NOT_ALLOWED", message: "use \(allowed) on this route",
            headers: [("Allow", allowed)])
    }

    /// The error a status fault answers with.
    static func injected(status: Int, retryAfter: Int?) -> APIError {
        let code: String
        switch status {
        case 429: code = "RATE_LIMIT_TOO_MANY_REQUESTS"
        case 402: code = "CHAT_CREDITS_EXHAUSTED"
        case 401: code = "AUTH_INVALID_JWT"
        case 403: code = "AUTH_OWNERSHIP"
        case 404: code = "NOT_FOUND"
        case 500: code = "INTERNAL_SERVER_ERROR"
        case 400..<500: code = "VALIDATION_INVALID_BODY"
        default: code = "INTERNAL_SERVER_ERROR"
        }
        let seconds = retryAfter ?? ((status == 429 || status == 503) ? 2 : nil)
        return APIError(
            status: status, code: code, message: "injected fault: status \(status)",
            headers: seconds.map { [("Retry-After", String($0))] } ?? [])
    }
}
