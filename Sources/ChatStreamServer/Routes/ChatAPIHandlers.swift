// ChatAPIHandlers: the request entry point of a ChatAPIServer and what every handler shares
// (the store, the configuration, the queue of injected faults, JSON body and response helpers).
// The handlers themselves live in ChatAPIHandlers+Chat.swift and ChatAPIHandlers+Conversations.swift.

import ChatStream
import Foundation
import Synchronization

/// Serves the chat API's requests; one instance shared by every connection thread.
final class ChatAPIHandlers: Sendable {
    let configuration: ChatAPIServer.Configuration
    let store: ConversationStore
    /// The key that seals page cursors.
    var cursorKey: [UInt8] { store.cursorKey }
    /// Checks user tokens (HS256 with the configured secret, or development mode).
    let verifier: JWTVerifier
    /// The streamed replies whose events are held (PROTOCOLS.md section 8).
    let replies: ReplyRegistry
    private let injectedFaults = Mutex<[ChatAPIServer.Fault]>([])
    /// Serves live event streams after their head, on one thread (LiveStreamWriter).
    let liveStreams: LiveStreamWriter
    /// The threads streamed replies are generated on (kept between replies).
    let replyThreads = WorkerThreads(name: "reply", stackSize: 256 * 1024)

    init(configuration: ChatAPIServer.Configuration, store: ConversationStore) {
        self.configuration = configuration
        self.store = store
        self.replies = ReplyRegistry(limits: configuration.replies)
        let http = configuration.http
        self.liveStreams = LiveStreamWriter(
            store: store, settings: configuration.liveEvents,
            caps: AddressCaps(
                global: http.maxStreams, perAddress: http.maxStreamsPerAddress,
                perNetwork: http.maxStreamsPerNetwork))
        self.verifier = JWTVerifier(
            secret: configuration.jwtSecret.map { Array($0.utf8) }, clockSkew: configuration.jwtClockSkew)
    }

    var extensions: Bool { configuration.extensionsEnabled }

    /// Answers one request (the ``HTTPServer`` handler).
    func handle(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        do {
            let route = try APIRoute.resolve(
                request, agentIds: configuration.servedAgentIds, extensions: configuration.extensionsEnabled,
                resumableReplies: configuration.resumableReplies)
            switch route {
            case .chat: try chat(request, writer)
            case .verify: try verify(request, writer)
            case .listConversations: try listConversations(request, writer)
            case .createConversation: try createConversation(request, writer)
            case .conversation(let id): try conversation(id, request, writer)
            case .messages(let id): try messages(id, request, writer)
            case .toolResult(let id): try toolResult(id, request, writer)
            case .retry(let id): try retry(id, request, writer)
            case .close(let id): try close(id, request, writer)
            case .tags(let id): try tags(id, request, writer)
            case .read(let id): try read(id, request, writer)
            case .events: try events(request, writer)
            case .replyStream(let conversationId, let messageId):
                try replyStream(conversationId, messageId, request, writer)
            case .stopReply(let conversationId, let messageId):
                try stopReply(conversationId, messageId, request, writer)
            }
        } catch let error as APIError {
            guard !writer.hasStartedResponse else { throw error }
            try respond(error, writer)
        } catch let error as HTTPServerError {
            throw error
        } catch {
            guard !writer.hasStartedResponse else { throw error }
            try respond(
                APIError(status: 500, code: "INTERNAL_SERVER_ERROR", message: "internal error: \(error)"), writer)
        }
    }

    // MARK: - Faults

    /// Queues a fault for the next `fault.count` chat or retry requests.
    func inject(_ fault: ChatAPIServer.Fault) {
        guard fault.count > 0 else { return }
        injectedFaults.withLock { $0.append(fault) }
    }

    /// Forgets every queued fault.
    func clearInjectedFaults() {
        injectedFaults.withLock { $0.removeAll() }
    }

    /// The fault for this chat or retry request: header (only when allowed), then the next injected
    /// one (used up), then the standing one; clamped to the documented bounds.
    func fault(for request: HTTPServerRequest) throws(APIError) -> ChatAPIServer.Fault {
        let headerText = configuration.allowsFaultHeader ? request.headers["X-ChatStream-Fault"] : nil
        let header = try headerText.map { header throws(APIError) in
            try ChatAPIServer.Fault.parse(header: header)
        }
        let injected: ChatAPIServer.Fault? = injectedFaults.withLock { queue in
            guard !queue.isEmpty else { return nil }
            let fault = queue[0]
            queue[0].count -= 1
            if queue[0].count <= 0 { queue.removeFirst() }
            return fault
        }
        var fault = configuration.fault
        if let injected { fault = injected.merged(with: fault) }
        if let header { fault = header.merged(with: fault) }
        return fault.bounded
    }

    // MARK: - Helpers

    /// The request body as a JSON object: 400 `VALIDATION_INVALID_JSON` when it is not JSON,
    /// `VALIDATION_INVALID_BODY` when it is JSON but not an object.
    func jsonObject(_ request: HTTPServerRequest) throws(APIError) -> JSONObject {
        guard !request.body.isEmpty else { throw APIError.invalidJSON("the request body must be a JSON object") }
        let value: JSONTree
        do {
            value = try JSONTree(parsing: request.body)
        } catch {
            throw APIError.invalidJSON("the request body is not valid JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw APIError.invalidBody("the request body must be a JSON object")
        }
        return object
    }

    /// The string member `key`, nil when absent or null; 400 for another type, or when longer than
    /// its byte limit (``StringLimits/bodyMembers``).
    func optionalString(_ body: JSONObject, _ key: String) throws(APIError) -> String? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw APIError.invalidBody("\(key) must be a string", field: key) }
        if let limit = StringLimits.bodyMembers[key] { try StringLimits.check(text, field: key, maxBytes: limit) }
        return text
    }

    /// The string member `key`; 400 when absent, empty or of another type.
    func requiredString(_ body: JSONObject, _ key: String) throws(APIError) -> String {
        guard let text = try optionalString(body, key), !text.isEmpty else {
            throw APIError.invalidBody("\(key) is required", field: key)
        }
        return text
    }

    /// The string member `key` as a lowercase UUID, nil when absent; 400 when it is not a UUID.
    func optionalUUID(_ body: JSONObject, _ key: String) throws(APIError) -> String? {
        guard let text = try optionalString(body, key) else { return nil }
        guard text.utf8.count == 36, UUID(uuidString: text) != nil else {
            throw APIError.invalidBody("\(key) must be a UUID such as 0b7e8f9a-1c2d-4e5f-8a9b-0c1d2e3f4a5b", field: key)
        }
        return text.lowercased()
    }

    /// The Boolean member `key`, nil when absent; 400 for another type.
    func optionalBool(_ body: JSONObject, _ key: String) throws(APIError) -> Bool? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw APIError.invalidBody("\(key) must be a boolean", field: key) }
        return flag
    }

    /// Sends `value` as JSON.
    func respond(_ value: JSONTree, status: Int = 200, _ writer: HTTPServerResponseWriter) throws {
        try writer.respond(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: value.jsonBytes)
    }

    /// Sends an error body.
    func respond(_ error: APIError, _ writer: HTTPServerResponseWriter) throws {
        try writer.respond(
            status: error.status, headers: [("Content-Type", "application/json; charset=utf-8")] + error.headers,
            body: error.jsonValue.jsonBytes)
    }

    /// The current time in epoch seconds.
    static var now: Int { Int(Date().timeIntervalSince1970) }

    /// A new lower-case UUID of version 7 (time-ordered; see `TimeOrderedUUID`).
    static func newID() -> String { TimeOrderedUUID.make() }
}
