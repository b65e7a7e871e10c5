// APIRoute: maps a request's method and path to an operation of the chat API.
//
// Paths are accepted with or without the `/api/sdk` prefix. A known path with another method is
// 405 (with `Allow`); an unknown path, or an extension route while the extensions are off, is 404
// `NOT_FOUND`; a known route naming another agent is 404 `AGENT_NOT_FOUND`.

import ChatStream

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
        case .listConversations, .conversation, .messages, .events: "GET"
        case .tags: "PUT"
        default: "POST"
        }
    }

    /// The route for `request`, or the error to answer with.
    static func resolve(
        _ request: HTTPServerRequest, agentId: String, extensions: Bool
    ) throws(APIError) -> APIRoute {
        var segments = request.pathSegments[...]
        if segments.starts(with: ["api", "sdk"]) { segments = segments.dropFirst(2) }
        guard segments.count >= 3, segments.first == "agents" else { throw APIError.notFound }
        let agent = segments[segments.startIndex + 1]
        let rest = Array(segments.dropFirst(2))
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
        default: throw APIError.notFound
        }
        if route.isExtension && !extensions { throw APIError.notFound }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard method == route.method else {
            throw APIError.methodNotAllowed(route == .listConversations && extensions ? "GET, POST" : route.method)
        }
        guard agent == agentId else { throw APIError.agentNotFound(agent) }
        return route
    }
}
