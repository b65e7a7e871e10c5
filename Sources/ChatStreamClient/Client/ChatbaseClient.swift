// ChatbaseClient: the Chatbase-compatible chat API (PROTOCOLS.md section 1) over any HTTPTransport,
// with the Chatbase iOS SDK's documented API.
//
// One class, Sendable, its few mutable fields (current conversation, user, token, tools) behind a
// Mutex: the documented façade over its collaborators. Requests are built from the client's
// identity (ChatbaseClient+Requests) and sent by a RequestPerformer (retries, error mapping);
// a ReplyRunner runs a send's rounds; a HistoryRepository answers lists from the server or the
// store. Bodies are read with the yajl layer (WireDecoding), streams with the UI-message-stream
// decoder and MessageAssembler.

import ChatStream
import Foundation
import Synchronization

/// A client for one agent of a Chatbase-compatible chat API.
///
/// ```swift
/// let client = ChatbaseClient(agentId: "my-agent", baseURL: "http://127.0.0.1:8787")
/// let response = try await client.send("Hello!") { callbacks in
///     callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
/// }
/// let more = try await client.send("And then?", conversationId: response.conversationId)
/// ```
public final class ChatbaseClient: Sendable {
    /// The library version sent in `User-Agent: ChatStream/<version>`.
    public static let version = "0.1.0"

    /// The Chatbase API's address, the documented default base URL.
    public static let defaultBaseURL = "https://www.chatbase.co/api/sdk"

    /// The agent this client talks to.
    public let agentId: String
    /// The API's base URL (paths such as `agents/{id}/chat` are relative to it).
    public let baseURL: URL
    /// The transport requests go through.
    public let transport: any HTTPTransport
    /// The most chat requests one send or retry makes, as the SDK counts: when the reply to the
    /// last of them still asks for tools, those tools run and their results are posted, and the
    /// call fails with ``ChatError/toolLoopLimitExceeded(limit:)`` without sending another.
    public let maxToolLoopSteps: Int
    /// How idempotent requests (GETs, chats with their `clientMessageId`, tool results) are
    /// retried after a passing failure; ``RetryPolicy/none`` turns retries off.
    public let retryPolicy: RetryPolicy
    /// The longest silence allowed on a request (waiting for the head, between body chunks), and the
    /// longest a streamed reply may go without an event (comments do not count; then it is resumed).
    public let idleTimeout: Duration
    /// The local history (nil: none; every list and page then comes from the server).
    public let store: HistoryStore?

    /// The base URL text when it was not a URL: every request then throws ``ChatError/invalidURL(_:)``.
    let invalidBaseURL: String?
    private let identityStore: any IdentityStore
    private let state: Mutex<State>
    /// Serialises outbox flushes and tracks the messages on their way.
    let outboxQueue = Outbox()
    /// Sends requests, maps failures to the client's errors, retries the idempotent ones.
    let performer: RequestPerformer

    struct State {
        /// ``ChatbaseClient/totalTimeout``.
        var totalTimeout: Duration?
        var conversationId: String?
        var userToken: String?
        var userId: String?
        /// Why the stored signed-in user could not be read; requests fail with it until
        /// ``identify(token:)`` or ``logout()`` replaces the stored user.
        var identityError: IdentityStoreError?
        var deviceId: String?
        var tools: [String: ToolHandler] = [:]
        /// What happens to a message the server could not be reached for.
        var outboxPolicy = OutboxPolicy.off
    }

    /// A client for `agentId`, as the Chatbase SDK documents it.
    ///
    /// - Parameters:
    ///   - agentId: the agent to talk to.
    ///   - baseURL: the API's address (default ``defaultBaseURL``).
    ///   - configuration: the `URLSessionConfiguration` of every request, honoured as given: its
    ///     `timeoutIntervalForRequest` is the idle timeout of every request (the longest silence
    ///     waiting for the answer or between two chunks of it), its resource timeout, caching,
    ///     cookies and extra headers hold. On Linux requests go through ``CurlTransport``, which
    ///     honours the headers, cookies and resource timeout but caches nothing (see
    ///     ``CurlTransport/Configuration`` for what is not mapped there).
    ///   - maxToolLoopSteps: the most tool rounds per send or retry (default 10).
    ///
    /// As the Chatbase SDK documents: there is no outbox (``OutboxPolicy/off``), so a send that
    /// fails throws its error and is never sent later by itself.
    ///
    /// ```swift
    /// let config = URLSessionConfiguration.default
    /// config.timeoutIntervalForRequest = 30
    /// let client = ChatbaseClient(agentId: "my-agent", configuration: config, maxToolLoopSteps: 20)
    /// ```
    public convenience init(
        agentId: String, baseURL: String = ChatbaseClient.defaultBaseURL,
        configuration: URLSessionConfiguration = .default, maxToolLoopSteps: Int = 10
    ) {
        let url = URL(string: baseURL).flatMap { $0.scheme == nil ? nil : $0 }
        let idle = configuration.timeoutIntervalForRequest
        self.init(
            agentId: agentId, baseURL: url ?? URL(fileURLWithPath: "/"),
            transport: URLSessionTransport(configuration: configuration),
            identityStore: ChatStreamPaths.defaultIdentityStore, maxToolLoopSteps: maxToolLoopSteps,
            idleTimeout: idle > 0 && idle.isFinite ? .milliseconds(Int64((idle * 1000).rounded())) : .seconds(60),
            store: HistoryStore.platformDefault, invalidBaseURL: url == nil ? baseURL : nil)
    }

    /// A client for `agentId` at `baseURL`, with ChatStream's options.
    ///
    /// - Parameters:
    ///   - agentId: the agent to talk to.
    ///   - baseURL: the API's base URL (paths such as `agents/{id}/chat` are relative to it).
    ///   - transport: how requests are sent (default ``DefaultHTTPTransport/make(limits:)``:
    ///     ``CurlTransport`` on Linux, ``URLSessionTransport`` on Apple platforms).
    ///   - identityStore: where the device ID and the signed-in user live across launches (default
    ///     ``ChatStreamPaths/defaultIdentityStore``: the Keychain on Apple platforms, private files in
    ///     ``ChatStreamPaths/dataDirectory`` elsewhere). A user signed in at the last launch is
    ///     signed in again.
    ///   - maxToolLoopSteps: the most tool rounds per send (default 10).
    ///   - retryPolicy: how idempotent requests are retried after a passing failure (default
    ///     ``RetryPolicy/init(maxAttempts:baseDelay:maxDelay:totalBudget:jitter:)``'s defaults;
    ///     ``RetryPolicy/none`` never retries).
    ///   - idleTimeout: the longest silence, or reply without an event (default 60 s; ``idleTimeout``).
    ///   - store: the local history (default ``HistoryStore/platformDefault``, at
    ///     ``HistoryStore/defaultPath``); nil keeps nothing locally.
    ///   - outbox: what happens to a message the server could not be reached for (default
    ///     ``OutboxPolicy/off``: the send throws and nothing is sent later by itself); the outbox
    ///     lives in `store`, so it needs one.
    public convenience init(
        agentId: String, baseURL: URL, transport: any HTTPTransport = DefaultHTTPTransport.make(),
        identityStore: any IdentityStore = ChatStreamPaths.defaultIdentityStore, maxToolLoopSteps: Int = 10,
        retryPolicy: RetryPolicy = RetryPolicy(), idleTimeout: Duration = .seconds(60),
        store: HistoryStore? = HistoryStore.platformDefault, outbox: OutboxPolicy = .off
    ) {
        self.init(
            agentId: agentId, baseURL: baseURL, transport: transport, identityStore: identityStore,
            maxToolLoopSteps: maxToolLoopSteps, retryPolicy: retryPolicy, idleTimeout: idleTimeout, store: store,
            invalidBaseURL: nil)
        outboxPolicy = outbox
    }

    init(
        agentId: String, baseURL: URL, transport: any HTTPTransport, identityStore: any IdentityStore,
        maxToolLoopSteps: Int, retryPolicy: RetryPolicy = RetryPolicy(), idleTimeout: Duration = .seconds(60),
        store: HistoryStore?, invalidBaseURL: String?
    ) {
        self.agentId = agentId
        self.baseURL = baseURL
        self.transport = transport
        self.identityStore = identityStore
        var initial = State()
        do {
            let user = try identityStore.signedInUser()
            initial.userToken = user?.token
            initial.userId = user?.userId
        } catch {
            initial.identityError = Self.identityError(error)
        }
        self.state = Mutex(initial)
        self.maxToolLoopSteps = maxToolLoopSteps
        self.retryPolicy = retryPolicy
        self.performer = RequestPerformer(transport: transport, retryPolicy: retryPolicy)
        self.idleTimeout = idleTimeout
        self.invalidBaseURL = invalidBaseURL
        self.store = store
        if let scope = storeScope, let id = try? store?.currentConversation(scope: scope) {
            state.withLock { $0.conversationId = id }
        }
    }

    // MARK: Conversation and identity state

    /// The conversation of the last reply (set as soon as a stream reveals it); nil after
    /// ``newConversation()``. Sending with `conversationId: nil` never uses it: pass it explicitly.
    /// With a ``store`` it is kept per agent (and identity) across launches.
    public var currentConversationId: String? { state.withLock { $0.conversationId } }

    /// Forgets ``currentConversationId`` (in the ``store`` too).
    public func newConversation() {
        state.withLock { $0.conversationId = nil }
        if let scope = storeScope { try? store?.setCurrentConversation(nil, scope: scope) }
    }

    /// The device ID sent as `X-Device-Id`, read from the identity store once (made there on
    /// first use). Empty when the store cannot be read; requests then fail with
    /// ``ChatError/decodingFailed(_:)`` naming the store, the file and the reason.
    ///
    /// ```swift
    /// print(client.deviceId)
    /// ```
    public var deviceId: String { (try? storedDeviceId()) ?? "" }

    /// The device ID, or why the identity store could not give one.
    func storedDeviceId() throws -> String {
        if let id = state.withLock({ $0.deviceId }) { return id }
        let id = try identityStore.deviceId()
        state.withLock { $0.deviceId = id }
        return id
    }

    /// Anonymous, or identified with the token of ``identify(token:)``.
    public var authState: AuthState {
        state.withLock { $0.userToken.map(AuthState.identified(token:)) ?? .anonymous }
    }

    /// Whether a user token is set (``identify(token:)``).
    public var isIdentified: Bool { state.withLock { $0.userToken != nil } }

    /// The user the server said the last reply belongs to (kept across launches for a signed-in
    /// user); nil until a reply or ``identify(token:)`` named one, and after ``logout()``.
    public var currentUserId: String? { state.withLock { $0.userId } }

    /// Verifies `token` with the server, then sends it as `X-User-Token` on every request and
    /// saves it in the identity store, so the user stays signed in after the app restarts. The
    /// device's anonymous conversations now belong to the user; in the ``store`` they move to the
    /// user's rows (a previous user's rows are deleted).
    ///
    /// ```swift
    /// try await client.identify(token: jwt)
    /// ```
    /// - Throws: ``APIError`` when the server rejects the token (the client stays as it was);
    ///   ``ChatError/decodingFailed(_:)`` (`stored identity: ...`, naming the file and the reason)
    ///   when the token was accepted but could not be saved (the user is signed in until the
    ///   process ends).
    public func identify(token: String) async throws {
        let bytes = try await performForBytes(
            "POST", ["verify"], body: ["token": .string(token)], extensionRoute: false, checkIdentity: false)
        let userId = try? WireDecoding.parse(bytes) { $0["data"]?["userId"]?.string }
        let (before, previousUserScopes) = (storeScope, signedInScopes)
        let sameUser = withState { $0.userToken == token || ($0.userId != nil && $0.userId == userId) }
        state.withLock {
            $0.userToken = token
            $0.userId = userId
            $0.identityError = nil
        }
        moveCacheToUser(from: before, previousUserScopes: previousUserScopes, sameUser: sameUser)
        do {
            try identityStore.setSignedInUser(SignedInUser(token: token, userId: userId))
        } catch {
            throw ChatError.identity(Self.identityError(error))
        }
    }

    /// Back to anonymous: stops sending the user token, removes it from the identity store (a
    /// stored user that could not be read included) and forgets the current conversation and user.
    /// The signed-in user's rows in the ``store`` (history, cursors, outbox) are deleted, and so
    /// are the device's rows from before it signed in (those conversations are the user's now).
    public func logout() {
        // The user's rows, and any the device still holds from before it signed in (the server
        // moved those conversations to the user): nothing of the user is left on the device.
        let scopes = signedInScopes + (deviceStoreScope.map { [$0] } ?? [])
        if let store, !scopes.isEmpty { try? store.clear(scopes: scopes) }
        state.withLock {
            $0.userToken = nil
            $0.userId = nil
            $0.identityError = nil
            $0.conversationId = nil
        }
        do {
            try identityStore.setSignedInUser(nil)
        } catch {
            // Still signed out in memory; the next launch must not sign the user back in silently.
            state.withLock { $0.identityError = Self.identityError(error) }
        }
    }

    /// The signed-in user's ID as last told by the server (kept across launches); nil when anonymous.
    var storedUserId: String? { state.withLock { $0.userToken == nil ? nil : $0.userId } }

    /// Records the user a reply names (``currentUserId``); a signed-in user's is saved in the
    /// identity store too.
    func rememberUserId(_ userId: String) {
        let user: SignedInUser? = state.withLock {
            guard $0.userId != userId else { return nil }
            $0.userId = userId
            return $0.userToken.map { SignedInUser(token: $0, userId: userId) }
        }
        if let user { try? identityStore.setSignedInUser(user) }
    }

    static func identityError(_ error: any Error) -> IdentityStoreError {
        (error as? IdentityStoreError) ?? IdentityStoreError(.io, "identity store", "\(error)")
    }

    func noteConversation(_ id: String) {
        let changed = state.withLock { state in
            defer { state.conversationId = id }
            return state.conversationId != id
        }
        if changed, let scope = storeScope { try? store?.setCurrentConversation(id, scope: scope) }
    }

    func withState<R: Sendable>(_ body: (inout sending State) -> sending R) -> R {
        state.withLock { body(&$0) }
    }
}

/// The client's former name.
@available(*, deprecated, renamed: "ChatbaseClient")
public typealias ChatClient = ChatbaseClient
