// ChatAPIServer: a local, Chatbase-compatible chat API (PROTOCOLS.md sections 1, 2 and 5) on top of
// HTTPServer, for the CLI's `serve`, client tests and demos.
//
// The demo agent replies deterministically (see ReplyGenerator). State lives in a SQLite database
// (ConversationStore): a file in WAL mode, or in memory. User tokens are verified as HS256 JWTs when a
// secret is configured; without one (development mode) their signatures are not checked, so the server
// then refuses to listen on anything but loopback.

import ChatStream

/// A local chat API server speaking the Chatbase SDK protocol and the ChatStream extensions.
///
/// ```swift
/// var configuration = ChatAPIServer.Configuration()
/// configuration.port = 0
/// let server = ChatAPIServer(configuration: configuration)
/// try server.start()
/// print("http://127.0.0.1:\(server.port)/api/sdk/agents/demo-agent/chat")
/// server.injectFault(.init(status: 429))  // the next chat answers 429 with Retry-After: 2
/// server.stop()
/// ```
///
/// Routes, with or without the `/api/sdk` prefix: `POST /agents/{agentId}/chat`, `POST .../verify`,
/// `GET .../conversations`, `GET .../conversations/{id}/messages`, `POST .../conversations/{id}/tool-result`,
/// `POST .../conversations/{id}/retry`, the resumable replies' `GET .../conversations/{id}/messages/{messageId}/stream`
/// and `POST .../messages/{messageId}/stop`, and with the extensions `GET .../conversations/{id}`,
/// `POST .../conversations/{id}/close`, `PUT .../conversations/{id}/tags`, `POST .../conversations/{id}/read`,
/// and the live stream `GET .../events` (every change, from the API or from the admin calls below,
/// is sent to its owner's subscribers after it commits).
public final class ChatAPIServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: Configuration
    let handlers: ChatAPIHandlers
    private let http: HTTPServer
    private let loadError: (any Error)?

    /// A server with `configuration`; the data file, if any, is read now (a failure surfaces from ``start()``).
    public init(configuration: Configuration) {
        self.configuration = configuration
        var loadError: (any Error)?
        let store: ConversationStore
        let capacity = configuration.extensionsEnabled ? max(1, configuration.liveEvents.capacityPerCaller) : 0
        let live = configuration.liveEvents
        func open(_ path: String?) throws -> ConversationStore {
            try ConversationStore(
                path: path, liveEventCapacity: capacity, liveEventBytes: live.bytesPerCaller,
                inlineMessageBytes: live.inlineMessageBytes, tailBytes: live.memoryBytes,
                previewLength: configuration.lastMessagePreviewLength, readWait: configuration.storeReadWait,
                recover: configuration.recover)
        }
        do {
            store = try open(configuration.dataFile)
        } catch {
            loadError = error
            store = try! open(nil)
        }
        self.loadError = loadError
        let handlers = ChatAPIHandlers(configuration: configuration, store: store)
        self.handlers = handlers
        http = HTTPServer(host: configuration.host, port: configuration.port, configuration: configuration.http) {
            request, writer in try handlers.handle(request, writer)
        }
    }

    /// Where ``Configuration/recover`` moved a damaged data file and its write-ahead log before
    /// starting a new store (`<file>.damaged-<UTC time>`, with `-wal` and `-shm` beside it); empty
    /// when nothing was damaged.
    public var movedAsideFiles: [String] { handlers.store.movedAside }

    /// Starts listening. Throws when the data file could not be read, the address cannot be bound, or
    /// (``HTTPServerError/insecureBinding``) the host is not loopback while no ``Configuration/jwtSecret``
    /// is set: development mode accepts unsigned tokens, so anyone who can reach it could claim any user.
    /// Throws ``HTTPServerError/socket`` naming the library when libcrypto (Linux; opened here, not
    /// at launch) cannot be loaded, since tokens and page cursors are signed with it.
    public func start() throws {
        if let loadError { throw loadError }
        if let reason = HMACSHA256.unavailableReason() {
            throw HTTPServerError.socket.with(message: "cannot sign tokens and page cursors: \(reason)")
        }
        if configuration.jwtSecret == nil, !Socket.isLoopback(host: configuration.host) {
            throw HTTPServerError.insecureBinding.with(
                message: "refusing to listen on \(configuration.host) without a JWT secret: development mode "
                    + "accepts unsigned user tokens, so only loopback is allowed; set a secret "
                    + "(chatstream serve --jwt-secret SECRET) or listen on 127.0.0.1")
        }
        try handlers.reopenReplies()
        try handlers.store.write(recordingEvents: false) {
            try $0.claimConversationsWithoutAgent(for: configuration.servedAgentIds[0])
        }
        handlers.store.liveEventSignal.reopen()
        try handlers.liveStreams.start()
        do {
            try http.start()
        } catch {
            handlers.liveStreams.stop()
            throw error
        }
    }

    /// The port listened on (the real one when configured with 0); 0 before ``start()``.
    public var port: UInt16 { http.port }

    /// Stops listening and drops open connections. Replies still generating are stored with the
    /// text they have, marked interrupted (their streams are cut; a resume ends them with an error).
    /// Idempotent.
    public func stop() {
        handlers.interruptGeneratingReplies()
        handlers.store.liveEventSignal.close()
        handlers.liveStreams.stop()
        http.stop()
    }

    /// The bytes of reply events held for resumption (generating and ended replies).
    public var heldReplyBytes: Int { handlers.replies.heldBytes }

    /// The number of replies being generated now.
    public var generatingReplyCount: Int { handlers.replies.generating.count }

    /// The number of open `GET .../events` streams.
    public var liveSubscriberCount: Int { handlers.store.liveEventSignal.subscriberCount }

    /// The number of reply streams the live stream writer serves now.
    var replyStreamCount: Int { handlers.liveStreams.replyStreamCount }

    /// Records that a participant started or stopped typing in a conversation (as a human agent's
    /// console would); the owner's live stream gets a `typing` event. False when there is no such conversation.
    @discardableResult
    public func setTyping(conversationId: String, participant: String = "human_agent", active: Bool) -> Bool {
        let conversationId = APIRoute.normalizedID(conversationId)
        guard (try? handlers.store.read({ try $0.conversation(conversationId) != nil })) == true else { return false }
        handlers.store.recordLiveEvent(
            type: "typing",
            data: [
                "conversationId": .string(conversationId), "participant": .string(participant), "active": .bool(active),
            ],
            conversationId: conversationId)
        return true
    }

    /// Applies `fault` to the next `fault.count` chat or retry requests (after any fault injected before).
    public func injectFault(_ fault: Fault) { handlers.inject(fault) }

    /// Forgets every fault injected and not yet used.
    public func clearFaults() { handlers.clearInjectedFaults() }

    /// The number of conversations stored.
    public var conversationCount: Int { (try? handlers.store.read { try $0.conversationCount() }) ?? 0 }

    /// Marks a conversation `ended`, as an agent would; false when there is no such conversation.
    @discardableResult
    public func endConversation(id: String) -> Bool { setStatus("ended", of: id) }

    /// Marks a conversation `taken_over` (a human took over); false when there is no such conversation.
    @discardableResult
    public func takeOverConversation(id: String) -> Bool { setStatus("taken_over", of: id) }

    /// Sets a conversation's status to `rawStatus` as stored and sent, which may be one this
    /// version does not know (as a newer server would send); false when there is no such
    /// conversation. Filters count an unknown status as `ongoing`, as clients read it.
    @discardableResult
    public func setConversationStatus(id: String, rawStatus: String) -> Bool { setStatus(rawStatus, of: id) }

    /// Adds an agent message (as a human agent would) and returns its ID; nil when there is no such conversation.
    @discardableResult
    public func addAgentMessage(conversationId: String, text: String) -> String? {
        let conversationId = APIRoute.normalizedID(conversationId)
        let now = ChatAPIHandlers.now
        return try? handlers.store.write { store -> String? in
            guard try store.conversation(conversationId) != nil else { return nil }
            let message = try store.appendMessage(
                id: ChatAPIHandlers.newID(), role: "assistant", parts: [AssembledPart.text(text).jsonValue],
                to: conversationId, now: now)
            try store.touch(conversationId, now: now)
            return message.id
        }
    }

    private func setStatus(_ status: String, of id: String) -> Bool {
        let id = APIRoute.normalizedID(id)
        let now = ChatAPIHandlers.now
        return
            (try? handlers.store.write { store -> Bool in
                guard try store.conversation(id) != nil else { return false }
                try store.setStatus(status, of: id)
                try store.touch(id, now: now)
                return true
            }) ?? false
    }
}
