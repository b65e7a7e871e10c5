// swift-format-ignore-file
// (The examples are kept exactly as the doc comments show them.)
// The Swift examples of the `///` comments in ChatStreamClient, compiled (see
// DocBlocksAreCompiledTests and README.md here). Each function holds one example verbatim, under
// a comment naming where it is; its parameters supply what the example uses. The functions are
// never called: compiling them is the test.

import ChatStream
import ChatStreamClient
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(SwiftUI)
    import SwiftUI
#endif

// Sources/ChatStreamClient/Store/HistoryStore.swift:22
func symbolHistoryStore(url: URL) async throws {
    let store = try HistoryStore(path: "/tmp/history.sqlite")
    let client = ChatbaseClient(agentId: "my-agent", baseURL: url, store: store)
    let cached = try await client.listConversations(limit: 20, source: .local)
    _ = cached
}

// Sources/ChatStreamClient/Live/AsyncLiveEventSequence.swift:210
func symbolAsyncLiveEventSequence(client: ChatbaseClient) async throws {
    for try await event in client.events() {
        if case .messageCreated(let id, let message) = event.kind { print(id, message.text) }
    }
}

// Sources/ChatStreamClient/Live/LiveEvent.swift:9
@MainActor func symbolLiveEvent(client: ChatbaseClient, list: ConversationRows) async throws {
    var open: [String: [Message]] = [:]
    for try await event in client.events() {
        switch event.kind {
        case .conversationUpdated(let conversation): list.upsert(conversation)
        case .messageCreated(let id, let message): open[id]?.append(message)
        case .reset: try await list.refresh()
        default: break
        }
    }
}

// Sources/ChatStreamClient/Identity/DeviceIdDefaults.swift:13
func symbolDeviceIdDefaults() {
    let store = FileIdentityStore(deviceIdDefaults: DeviceIdDefaults(suiteName: "group.example.app"))
    _ = store
}

// Sources/ChatStreamClient/Identity/FileIdentityStore.swift:16
func symbolFileIdentityStore() throws {
    let store = FileIdentityStore(directory: URL(fileURLWithPath: "/var/lib/myapp/chat"))
    print(try store.deviceId())
}

// Sources/ChatStreamClient/Identity/IdentityStore.swift:15
func symbolIdentityStore() throws {
    let store = InMemoryIdentityStore()
    let id = try store.deviceId()
    try store.setSignedInUser(SignedInUser(token: "header.payload.signature"))
    _ = id
}

// Sources/ChatStreamClient/Identity/IdentityStoreError.swift:8
func symbolIdentityStoreError() throws {
    do {
        _ = try FileIdentityStore().deviceId()
    } catch let error as IdentityStoreError where error.kind == .corrupt {
        print(error.location, error.message)
    }
}

// Sources/ChatStreamClient/Identity/KeychainIdentityStore.swift:19
#if canImport(Security)
func symbolKeychainIdentityStore() {
    let client = ChatbaseClient(agentId: "my-agent", identityStore: KeychainIdentityStore())
    _ = client
}
#endif

// Sources/ChatStreamClient/Identity/LegacyDeviceId.swift:9
func symbolLegacyDeviceId() {
    let store = FileIdentityStore(migratingFrom: [.userDefaults(key: "com.example.deviceId")])
    _ = store
}

// Sources/ChatStreamClient/Models/APIError.swift:8
func symbolAPIError(client: ChatbaseClient, id: String) async throws {
    do {
        _ = try await client.send("Hi", conversationId: id)
    } catch APIError.httpError(let status, let detail) where detail.code == "CHAT_CONVERSATION_NOT_ONGOING" {
        print("conversation closed (\(status))")
    }
}

// Sources/ChatStreamClient/Models/APIError.swift:77
func symbolAPIError2(client: ChatbaseClient, id: String) async throws {
    do {
        _ = try await client.send("Hi", conversationId: id)
    } catch let error as APIError where error.isRateLimited {
        try await Task.sleep(for: .seconds(error.retryAfter ?? 1))
    } catch let error as APIError {
        print(error.apiCode ?? "network", error.localizedDescription)
    }
}

// Sources/ChatStreamClient/Models/ChatError.swift:10
func symbolChatError(client: ChatbaseClient) async throws {
    do {
        _ = try await client.send("Plan my trip")
    } catch ChatError.toolLoopLimitExceeded(let limit) {
        print("gave up after \(limit) tool rounds")
    }
}

// Sources/ChatStreamClient/Models/ChatResponse.swift:9
func symbolChatResponse(client: ChatbaseClient) async throws {
    let response = try await client.send("Hello")
    print(response.message.text, response.conversationId, response.usage.credits)
}

// Sources/ChatStreamClient/Models/ChatUpdate.swift:5
func symbolChatUpdate(client: ChatbaseClient) async throws {
    for try await update in client.updates(sending: "Hello") {
        if case .textDelta(_, let delta) = update.event { print(delta, terminator: "") }
    }
}

// Sources/ChatStreamClient/Models/ClientError.swift:10
func symbolClientError(client: ChatbaseClient, id: String) async throws {
    let former = ClientError(.notSupportedByServer, "POST conversations")
    print(former)   // not supported by this server: POST conversations
}

// Sources/ChatStreamClient/Models/Conversation+Reply.swift:31
func symbolConversationReply(client: ChatbaseClient, shown: Conversation) async throws {
    let response = try await client.send("Hi", conversationId: shown.id)
    let updated = Conversation(reply: response, previous: shown)   // no refetch
    _ = updated
}

// Sources/ChatStreamClient/Models/Conversation+Reply.swift:43
func symbolConversationReply2(client: ChatbaseClient, shown: Conversation) async throws {
    var preview = shown
    for try await update in client.updates(sending: "Hi", conversationId: shown.id) {
        if let live = Conversation(reply: update.message, previous: shown) { preview = live }
    }
    _ = preview
}

// Sources/ChatStreamClient/Models/Conversation.swift:29
func symbolConversation(client: ChatbaseClient) async throws {
    let page = try await client.listConversations(limit: 20)
    for conversation in page.data { print(conversation.id, conversation.title ?? "untitled") }
}

// Sources/ChatStreamClient/Models/ConversationQuery.swift:6
func symbolConversationQuery(client: ChatbaseClient) async throws {
    let query = ConversationQuery().limit(50).status(.ongoing).tag("vip").unreadOnly().search("invoice").order(.ascending)
    let page = try await client.listConversations(query)
    _ = page
}

// Sources/ChatStreamClient/Models/FinishReason.swift:5
func symbolFinishReason(client: ChatbaseClient) async throws {
    let response = try await client.sendNonStreaming("Hello")
    if response.finishReason == .error { print("the agent failed") }
}

// Sources/ChatStreamClient/Models/HistorySource.swift:3
func symbolHistorySource(client: ChatbaseClient) async throws {
    func show(_ conversations: [Conversation]) {}
    let cached = try await client.listConversations(limit: 20, source: .local)      // no request
    for try await page in client.conversationPages(ConversationQuery(limit: 20)) { show(page.data) }  // cached, then fresh
    _ = cached
}

// Sources/ChatStreamClient/Models/JSONValue.swift:13
func symbolJSONValue(client: ChatbaseClient) {
    client.tool("lookup_order") { input in
        guard let id = input["order_id"]?.stringValue else {
            return .object(["error": .string("Missing order_id")])
        }
        return .object(["status": .string("shipped"), "items": .int(2)])
    }
}

// Sources/ChatStreamClient/Models/Message.swift:25
func symbolMessage(client: ChatbaseClient, id: String) async throws {
    let page = try await client.listMessages(conversationId: id, limit: 50)
    for message in page.data { print(message.sender, message.text) }
}

// Sources/ChatStreamClient/Models/MessagePart.swift:8
func symbolMessagePart(message: Message) {
    for part in message.parts {
        switch part {
        case .text(let text): print(text)
        case .toolCall(_, let toolName, let input): print("calls", toolName, input)
        case .toolResult(_, let toolName, let output): print(toolName, "returned", output)
        }
    }
}

// Sources/ChatStreamClient/Models/OutboxMessage.swift:7
func symbolOutboxMessage(client: ChatbaseClient) throws {
    for message in try client.outbox() where message.state == .failed {
        print("not accepted:", message.text, message.lastError ?? "")
    }
}

// Sources/ChatStreamClient/Models/PaginatedResponse.swift:6
func symbolPaginatedResponse(client: ChatbaseClient) async throws {
    var page = try await client.listConversations(limit: 20)
    print("Total: \(page.total)")
    while let next = try await page.loadMore() {
        page = next
    }
}

// Sources/ChatStreamClient/Models/ReplyStreamError.swift:7
func symbolReplyStreamError(client: ChatbaseClient) async throws {
    do {
        _ = try await client.send("Tell me a story")
    } catch let error as APIError {
        if let broken = error.replyStreamError { print("got so far:", broken.partialMessage.text) }
    }
}

// Sources/ChatStreamClient/Models/Usage.swift:5
func symbolUsage(response: ChatResponse) {
    print(response.usage.credits)
}

// Sources/ChatStreamClient/State/ConversationListState+Live.swift:18
#if canImport(SwiftUI)
struct SymbolConversationListStateLiveView: View {
    @State var list: ConversationListState

    var body: some View {
        Text("")
            .task { await list.load(); list.startLive() }
            .onDisappear { list.stopLive() }
    }
}
#endif

// Sources/ChatStreamClient/State/ConversationListState.swift:23
#if canImport(SwiftUI)
@MainActor func symbolConversationListState(client: ChatbaseClient, id: String, list: ConversationListState) {
    @State var list = ConversationListState(client: client, query: ConversationQuery().limit(30))
    // .task { await list.load() }, and at the end of the list: await list.loadMore()

    // Keep it current while a conversation screen sends:
    let chat = ConversationState(client: client, conversationId: id)
    chat.onReply = { [weak list] response in list?.apply(response) }
}
#endif

// Sources/ChatStreamClient/State/ConversationListState.swift:107
@MainActor func symbolConversationListState2(client: ChatbaseClient, id: String, list: ConversationListState) async throws {
    let response = try await client.send("Hi", conversationId: id)
    list.apply(response)
}

// Sources/ChatStreamClient/State/ConversationListState.swift:129
@MainActor func symbolConversationListState3(conversation: Conversation, list: ConversationListState) async {
    await list.close(conversation.id)   // list.conversations now shows it `.ended`
}

// Sources/ChatStreamClient/State/ConversationState+Live.swift:24
#if canImport(SwiftUI)
struct SymbolConversationStateLiveView: View {
    @State var state: ConversationState
    let id: String

    var body: some View {
        Text("")
            .task { await state.loadHistory(conversationId: id); state.startLive() }
            .onDisappear { state.stopLive() }
    }
}
#endif

// Sources/ChatStreamClient/State/ConversationState.swift:14
#if canImport(SwiftUI)
@MainActor func symbolConversationState(client: ChatbaseClient, input: String) {
    @State var state = ConversationState(client: client)
    // ...
    Task { await state.sendMessage(input) }
    ForEach(state.messages) { message in
        switch message.kind {
        case .text(let text): Text(text)
        case .toolCall(let card): Text("\(card.toolName): \(card.status)")
        }
    }
}
#endif

// Sources/ChatStreamClient/State/ConversationState.swift:133
@MainActor func symbolConversationState2(chat: ConversationState, list: ConversationListState) {
    chat.onReply = { [weak list] response in list?.apply(response) }
}

// Sources/ChatStreamClient/Client/AsyncPaginatedSequence.swift:21
func symbolAsyncPaginatedSequence(client: ChatbaseClient) async throws {
    for try await conversation in client.conversations(matching: ConversationQuery().limit(50)) {
        print(conversation.id)
    }
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Documented.swift:16
func symbolChatbaseClientDocumented(client: ChatbaseClient) async throws {
    let send = client.send(_:conversationId:configure:)
    let response = try await send("Hello", nil) { callbacks in
        callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
    }
    _ = response
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Documented.swift:40
func symbolChatbaseClientDocumented2(client: ChatbaseClient) async throws {
    let list = client.listConversations(cursor:limit:)
    let page = try await list(nil, 20)
    _ = page
}

// Sources/ChatStreamClient/Client/ChatbaseClient+History.swift:19
func symbolChatbaseClientHistory(client: ChatbaseClient) async throws {
    let page = try await client.listConversations(limit: 20)
    let next = try await page.loadMore()  // nil at the end
    _ = next
}

// Sources/ChatStreamClient/Client/ChatbaseClient+History.swift:34
func symbolChatbaseClientHistory2(client: ChatbaseClient) async throws {
    let page = try await client.listConversations(ConversationQuery().limit(20).status(.ongoing).tag("vip"))
    _ = page
}

// Sources/ChatStreamClient/Client/ChatbaseClient+History.swift:68
func symbolChatbaseClientHistory3(client: ChatbaseClient) async throws {
    var rows: [Conversation] = []
    for try await page in client.conversationPages(ConversationQuery(limit: 20)) {
        rows = page.data  // instantly from the cache, then replaced by the server's page
    }
    _ = rows
}

// Sources/ChatStreamClient/Client/ChatbaseClient+History.swift:139
func symbolChatbaseClientHistory4(client: ChatbaseClient, id: String) async throws {
    let page = try await client.listMessages(conversationId: id, limit: 50)
    _ = page
}

// Sources/ChatStreamClient/Client/ChatbaseClient+History.swift:193
func symbolChatbaseClientHistory5(client: ChatbaseClient, id: String) async throws {
    let conversation = try await client.conversation(id: id)
    _ = conversation
}

// Sources/ChatStreamClient/Client/ChatbaseClient+History.swift:214
func symbolChatbaseClientHistory6(client: ChatbaseClient) async throws {
    let conversation = try await client.createConversation(title: "Trip to Rome")
    try await client.send("Plan three days", conversationId: conversation.id)
}

// Sources/ChatStreamClient/Client/ChatbaseClient+History.swift:276
func symbolChatbaseClientHistory7(client: ChatbaseClient) async throws {
    for try await conversation in client.conversations(matching: ConversationQuery().status(.ongoing)) {
        print(conversation.id)
    }
}

// Sources/ChatStreamClient/Client/ChatbaseClient+History.swift:303
func symbolChatbaseClientHistory8(client: ChatbaseClient, id: String) async throws {
    for try await message in client.messages(in: id, pageSize: 50) { print(message.text) }
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Outbox.swift:19
func symbolChatbaseClientOutbox(client: ChatbaseClient) throws {
    let waiting = try client.outbox().filter { $0.state == .pending }
    _ = waiting
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Outbox.swift:45
func symbolChatbaseClientOutbox2(client: ChatbaseClient) async throws {
    let flush = try await client.flushOutbox()
    for delivery in flush.delivered { print(delivery.response.message.text) }
}

// Sources/ChatStreamClient/Client/ChatbaseClient+RetryPolicy.swift:25
func symbolChatbaseClientRetryPolicy(url: URL) {
    let client = ChatbaseClient(
        agentId: "my-agent", baseURL: url,
        retryPolicy: .init(maxAttempts: 5, baseDelay: .milliseconds(250), maxDelay: .seconds(4),
                           totalBudget: .seconds(15)))
    let quiet = ChatbaseClient(agentId: "my-agent", baseURL: url, retryPolicy: .none)  // never retries
    _ = (client, quiet)
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Send.swift:38
func symbolChatbaseClientSend(client: ChatbaseClient) async throws {
    let response = try await client.send("Tell me a story") { callbacks in
        callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
    }
    print(response.conversationId)
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Send.swift:61
func symbolChatbaseClientSend2(client: ChatbaseClient, id: String, reply: Message) async throws {
    let response = try await client.retry(conversationId: id, messageId: reply.id)
    _ = response
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Send.swift:79
func symbolChatbaseClientSend3(client: ChatbaseClient, id: String) async throws {
    let response = try await client.sendNonStreaming("Hello", conversationId: id)
    print(response.message.text, response.finishReason, response.usage.credits)
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Send.swift:108
func symbolChatbaseClientSend4(client: ChatbaseClient) async throws {
    for try await update in client.updates(sending: "Hi") {
        if case .textDelta(_, let delta) = update.event { print(delta, terminator: "") }
    }
}

// Sources/ChatStreamClient/Client/ChatbaseClient+Send.swift:130
func symbolChatbaseClientSend5(client: ChatbaseClient) {
    client.tool("get_weather") { input in
        .object(["city": input["city"] ?? .null, "temperature": .int(21)])
    }
}

// Sources/ChatStreamClient/Client/ChatbaseClient.swift:15
func symbolChatbaseClient() async throws {
    let client = ChatbaseClient(agentId: "my-agent", baseURL: "http://127.0.0.1:8787")
    let response = try await client.send("Hello!") { callbacks in
        callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
    }
    let more = try await client.send("And then?", conversationId: response.conversationId)
    _ = more
}

// Sources/ChatStreamClient/Client/ChatbaseClient.swift:84
func symbolChatbaseClient2() {
    let config = URLSessionConfiguration.default
    config.timeoutIntervalForRequest = 30
    let client = ChatbaseClient(agentId: "my-agent", configuration: config, maxToolLoopSteps: 20)
    _ = client
}

// Sources/ChatStreamClient/Client/ChatbaseClient.swift:178
func symbolChatbaseClient3(client: ChatbaseClient) {
    print(client.deviceId)
}

// Sources/ChatStreamClient/Client/ChatbaseClient.swift:207
func symbolChatbaseClient4(client: ChatbaseClient, jwt: String) async throws {
    try await client.identify(token: jwt)
}

// Sources/ChatStreamClient/Client/StreamCallbacks.swift:45
func symbolStreamCallbacks(client: ChatbaseClient) async throws {
    let response = try await client.send("Tell me a story") { callbacks in
        callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
        callbacks.onToolResult = { result in print("\n", result.toolName, "done") }
    }
    _ = response
}

// Sources/ChatStreamClient/Transport/CurlTransport+Configuration.swift:25
#if os(Linux)
func symbolCurlTransportConfiguration() {
    let session = URLSessionConfiguration.default
    session.httpAdditionalHeaders = ["X-App-Version": "2.1"]
    session.timeoutIntervalForResource = 120
    let transport = CurlTransport(configuration: CurlTransport.Configuration(session))
    _ = transport
}
#endif

// Sources/ChatStreamClient/Transport/CurlTransport.swift:27
#if os(Linux)
func symbolCurlTransport(url: URL) async throws {
    let transport = CurlTransport(limits: CurlTransport.Limits(maxBufferedBytes: 256 << 10))
    let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
    for try await chunk in response.body { print(chunk.count) }   // all bytes received since the last step
}
#endif

// Sources/ChatStreamClient/Transport/DefaultHTTPTransport.swift:6
func symbolDefaultHTTPTransport(url: URL) {
    let transport = DefaultHTTPTransport.make(limits: URLSessionTransport.Limits(maxBufferedBytes: 256 << 10))
    let client = ChatbaseClient(agentId: "my-agent", baseURL: url, transport: transport)
    _ = client
}

// Sources/ChatStreamClient/Transport/HTTPBody.swift:6
func symbolHTTPBody(response: HTTPResponse, decoder: inout MessageDecoder<UIMessageStreamDialect>) async throws {
    for try await chunk in response.body { try decoder.feed(chunk) }
    // or, for small bodies:
    let bytes = try await response.body.collect(upTo: 1 << 20)
    _ = bytes
}

// Sources/ChatStreamClient/Transport/HTTPRequest.swift:5
func symbolHTTPRequest(base: URL, agent: String) {
    let request = HTTPRequest(
        method: "POST", url: base.appendingPathComponent("agents/\(agent)/chat"),
        headers: ["Content-Type": "application/json", "Accept": "text/event-stream"],
        body: Array(#"{"message":"hi","stream":true}"#.utf8), idleTimeout: .seconds(30))
    _ = request
}

// Sources/ChatStreamClient/Transport/HTTPTransport.swift:6
func symbolHTTPTransport() async throws {
    let transport: any HTTPTransport = URLSessionTransport()
    let response = try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!))
    for try await chunk in response.body { print(chunk.count) }
}

// Sources/ChatStreamClient/Transport/PlainHTTPTransport.swift:28
func symbolPlainHTTPTransport() async throws {
    let transport = PlainHTTPTransport(fallback: URLSessionTransport())
    let response = try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!))
    for try await chunk in response.body { print(chunk.count) }   // all bytes received since the last step
}

// Sources/ChatStreamClient/Transport/TransportError.swift:3
func symbolTransportError(transport: any HTTPTransport, request: HTTPRequest) async throws {
    do {
        _ = try await transport.send(request)
    } catch let error as TransportError where error.kind == .timedOut {
        print("no answer in time:", error)
    }
}

// Sources/ChatStreamClient/Transport/URLSessionTransport+Curl.swift:20
func symbolURLSessionTransportCurl(url: URL) async throws {
    let transport = URLSessionTransport()
    let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
    for try await chunk in response.body { print(chunk.count) }   // chunks as the server sends them
}

// Sources/ChatStreamClient/Transport/URLSessionTransport+Limits.swift:7
func symbolURLSessionTransportLimits() {
    var limits = URLSessionTransport.Limits()
    limits.maxBufferedBytes = 256 << 10
    limits.redirects = .anyOrigin   // identity headers are still dropped on the other origin
    let transport = URLSessionTransport(limits: limits)
    _ = transport
}

// Sources/ChatStreamClient/Transport/URLSessionTransport.swift:31
func symbolURLSessionTransport(url: URL) async throws {
    let transport = URLSessionTransport()
    let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
    for try await chunk in response.body { print(chunk.count) }   // chunks as the server sends them
}

// MARK: Sources/ChatStreamClient/Models/OutboxPolicy.swift

func symbolOutboxPolicy() {
    let client = ChatbaseClient(
        agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787")!, outbox: .automatic)
    _ = client
}

// MARK: Sources/ChatStreamClient/Client/ChatbaseClient+Stop.swift

func symbolStopReply(client: ChatbaseClient, id: String, replyId: String) async throws {
    try await client.stopReply(conversationId: id, messageId: replyId)
}

// MARK: Sources/ChatStreamClient/Client/ChatbaseClient+Requests.swift
func symbolTotalTimeout(client: ChatbaseClient) {
    client.totalTimeout = .seconds(120)
}

// MARK: Sources/ChatStreamClient/Live/LiveConnectionState.swift
@MainActor func symbolLiveConnectionState(list: ConversationListState) {
    let banner =
        switch list.liveState {
        case .live: "Live"
        case .reconnecting(let delay): "Reconnecting in \(delay.components.seconds) s"
        case .connecting: "Connecting…"
        case .unsupported, .stopped: ""
        }
    print(banner)
}

// MARK: Sources/ChatStreamClient/State/ConversationState+Resume.swift

@MainActor func symbolResume(chat: ConversationState) async {
    // From the app's scene-phase change to active:
    await chat.resume()
}

// MARK: Sources/ChatStreamClient/Client/ChatbaseClient+RepliesInFlight.swift

func symbolCompleteRepliesInFlight(client: ChatbaseClient) async throws {
    for response in try await client.completeRepliesInFlight() {
        print(response.conversationId, response.message.text)
    }
}

// MARK: Sources/ChatStreamClient/Models/ReplyInFlight.swift

func symbolReplyInFlight(client: ChatbaseClient) throws {
    for reply in try client.repliesInFlight() { print(reply.conversationId, reply.messageId) }
}
