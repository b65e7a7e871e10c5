import ChatStream
import ChatStreamClient
import Foundation
import Synchronization

/// A scripted HTTPTransport: records every request and answers with `handler`.
final class FakeTransport: HTTPTransport {
    typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse
    private let recorded = Mutex<[HTTPRequest]>([])
    let handler: Handler

    init(_ handler: @escaping Handler) { self.handler = handler }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        return try await handler(request)
    }

    var requests: [HTTPRequest] { recorded.withLock { $0 } }
}

extension HTTPRequest {
    /// The body parsed as JSON (`.null` when absent).
    var json: JSONTree { body.flatMap { try? JSONTree(parsing: $0) } ?? .null }
    /// The path after `/agents/{agent}/`.
    var route: String {
        let parts = url.path.split(separator: "/").map(String.init)
        guard let agents = parts.firstIndex(of: "agents") else { return url.path }
        return parts.dropFirst(agents + 2).joined(separator: "/")
    }
    func query(_ name: String) -> [String] {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.filter { $0.name == name }
            .compactMap(\.value) ?? []
    }
}

extension APIError {
    /// The error body of an HTTP error.
    var detail: APIErrorDetail? {
        if case .httpError(_, let detail) = self { return detail }
        return nil
    }
}

enum Wire {
    static let base = URL(string: "http://fake.test/api")!

    static func client(_ transport: any HTTPTransport, maxToolLoopSteps: Int = 10) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent-1", baseURL: base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            maxToolLoopSteps: maxToolLoopSteps,
            retryPolicy: .init(
                maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(20), totalBudget: .seconds(1)),
            store: nil)
    }

    static func json(_ value: JSONTree, status: Int = 200, headers: HTTPHeaderFields = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: HTTPBody(bytes: value.jsonBytes))
    }

    static func error(_ status: Int, _ code: String, _ message: String = "failed", headers: HTTPHeaderFields = [:])
        -> HTTPResponse
    {
        json(["error": ["code": .string(code), "message": .string(message)]], status: status, headers: headers)
    }

    /// SSE bytes of `events`, then `data: [DONE]` unless `done` is false.
    static func sse(_ events: [JSONTree], done: Bool = true) -> [UInt8] {
        var text = events.map { "data: \($0.jsonText)\n\n" }.joined()
        if done { text += "data: [DONE]\n\n" }
        return Array(text.utf8)
    }

    static func stream(_ events: [JSONTree], done: Bool = true) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: ["Content-Type": "text/event-stream"], body: HTTPBody(bytes: sse(events, done: done)))
    }

    /// A plain text reply in conversation `conversationId`.
    static func reply(_ text: String, conversationId: String, messageId: String = "m-reply", finish: String = "stop")
        -> [JSONTree]
    {
        [
            ["type": "start", "messageId": .string(messageId)],
            ["type": "text-start", "id": "t1"],
            ["type": "text-delta", "id": "t1", "delta": .string(String(text.prefix(3)))],
            ["type": "text-delta", "id": "t1", "delta": .string(String(text.dropFirst(3)))],
            ["type": "text-end", "id": "t1"],
            [
                "type": "finish", "finishReason": .string(finish),
                "messageMetadata": [
                    "conversationId": .string(conversationId), "messageId": .string(messageId),
                    "userMessageId": "u-1", "finishReason": .string(finish), "usage": ["credits": 1],
                ],
            ],
        ]
    }

    static func conversationJSON(_ id: String, updated: Int, status: String = "ongoing") -> JSONTree {
        [
            "id": .string(id), "title": .string("title \(id)"), "createdAt": 1_700_000_000,
            "updatedAt": .number(JSONNumber(updated)), "userId": nil, "status": .string(status),
        ]
    }

    static func messageJSON(_ id: String, text: String, role: String = "assistant", at: Int = 1_700_000_000)
        -> JSONTree
    {
        [
            "id": .string(id), "role": .string(role), "parts": [["type": "text", "text": .string(text)]],
            "createdAt": .number(JSONNumber(at)), "feedback": nil,
        ]
    }

    /// Serves `items` newest-first in pages, with an index cursor.
    static func page(_ items: [JSONTree], request: HTTPRequest) -> HTTPResponse {
        let limit = Int(request.query("limit").first ?? "20") ?? 20
        let start = Int(request.query("cursor").first ?? "0") ?? 0
        let end = min(items.count, start + limit)
        let hasMore = end < items.count
        return json([
            "data": .array(Array(items[start..<end])),
            "pagination": [
                "cursor": hasMore ? .string(String(end)) : .null, "hasMore": .bool(hasMore),
                "total": .number(JSONNumber(items.count)),
            ],
        ])
    }
}
