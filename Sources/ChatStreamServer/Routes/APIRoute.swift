// APIRoute: maps a request's method and path to an operation of the chat API.
//
// Paths are accepted with or without the `/api/sdk` prefix. A known path with another method is
// 405 (with `Allow`); an unknown path, or an extension route while the extensions are off, is 404
// `NOT_FOUND`; a known route naming another agent is 404 `AGENT_NOT_FOUND`. Identifiers that are
// UUIDs are compared lower-cased (stored IDs are lower-case), so `createConversation(id:
// UUID().uuidString)` names the same conversation on every later route.

import ChatStream
import Foundation

/// One operation of the chat API.
enum APIRoute: Equatable {
    case chat
    case verify
    case listConversations
    /// `POST .../conversations` (section 6).
    case createConversation
    case conversation(String)
    case messages(String)
    case toolResult(String)
    case retry(String)
    case close(String)
    case tags(String)
    case read(String)
    case events
    /// `GET .../conversations/{id}/messages/{messageId}/stream` (section 8).
    case replyStream(String, String)
    /// `POST .../conversations/{id}/messages/{messageId}/stop` (section 8).
    case stopReply(String, String)

    /// Whether the route belongs to section 8 (resumable replies).
    var isResumableReplies: Bool {
        switch self {
        case .replyStream, .stopReply: true
        default: false
        }
    }

    /// Whether the route belongs to the section 5 extensions.
    var isExtension: Bool {
        switch self {
        case .conversation, .close, .tags, .read, .events, .createConversation: true
        default: false
        }
    }

    /// The method the route answers to.
    var method: String {
        switch self {
        case .listConversations, .conversation, .messages, .events, .replyStream: "GET"
        case .tags: "PUT"
        default: "POST"
        }
    }

    /// The route for `request`, or the error to answer with.
    static func resolve(
        _ request: HTTPServerRequest, agentIds: [String], extensions: Bool, resumableReplies: Bool = true
    ) throws(APIError) -> APIRoute {
        var segments = request.pathSegments[...]
        if segments.starts(with: ["api", "sdk"]) { segments = segments.dropFirst(2) }
        guard segments.count >= 3, segments.first == "agents" else { throw APIError.notFound }
        let agent = segments[segments.startIndex + 1]
        let rest = segments.dropFirst(2).map(Self.normalizedID)
        let route: APIRoute
        switch rest.count {
        case 1 where rest[0] == "chat": route = .chat
        case 1 where rest[0] == "verify": route = .verify
        case 1 where rest[0] == "conversations":
            route = request.method == "POST" && extensions ? .createConversation : .listConversations
        case 1 where rest[0] == "events": route = .events
        case 2 where rest[0] == "conversations": route = .conversation(rest[1])
        case 3 where rest[0] == "conversations":
            switch rest[2] {
            case "messages": route = .messages(rest[1])
            case "tool-result": route = .toolResult(rest[1])
            case "retry": route = .retry(rest[1])
            case "close": route = .close(rest[1])
            case "tags": route = .tags(rest[1])
            case "read": route = .read(rest[1])
            default: throw APIError.notFound
            }
        case 5 where rest[0] == "conversations" && rest[2] == "messages":
            switch rest[4] {
            case "stream": route = .replyStream(rest[1], rest[3])
            case "stop": route = .stopReply(rest[1], rest[3])
            default: throw APIError.notFound
            }
        default: throw APIError.notFound
        }
        if route.isExtension && !extensions { throw APIError.notFound }
        if route.isResumableReplies && !resumableReplies { throw APIError.notFound }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard method == route.method else {
            throw APIError.methodNotAllowed(route == .listConversations && extensions ? "GET, POST" : route.method)
        }
        guard agentIds.contains(agent) else { throw APIError.agentNotFound(agent) }
        return route
    }

    /// The `agentId` segment of `request`'s path (`/agents/{agentId}/...`, with or without
    /// `/api/sdk`), nil when the path names none.
    static func agentId(of request: HTTPServerRequest) -> String? {
        var segments = request.pathSegments[...]
        if segments.starts(with: ["api", "sdk"]) { segments = segments.dropFirst(2) }
        guard segments.count >= 2, segments.first == "agents" else { return nil }
        return segments[segments.startIndex + 1]
    }

    /// `id` lower-cased when it is a UUID (any case), else unchanged: every UUID the server stores
    /// is lower-case, and a client may send one in upper case (`UUID().uuidString`).
    static func normalizedID(_ id: String) -> String {
        guard id.utf8.count == 36, UUID(uuidString: id) != nil else { return id }
        return id.lowercased()
    }
}
