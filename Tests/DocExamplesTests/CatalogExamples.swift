// swift-format-ignore-file
// (The blocks are kept exactly as the documentation shows them.)
// The Swift blocks of the DocC catalogs (Sources/*/*.docc), compiled. Each function holds one
// block verbatim; its parameters supply what the block uses. The functions are never called:
// compiling them is the test (see DocBlocksAreCompiledTests and README.md here).

import ChatStream
import ChatStreamClient
import ChatStreamFraming
import Foundation

// MARK: ChatStreamClient.docc/GettingStarted.md

func gettingStartedFirstMessage() async throws {
    let client = ChatbaseClient(agentId: "demo-agent", baseURL: "http://127.0.0.1:8787")
    let response = try await client.send("Hello!")
    print(response.message.text)
    print(response.conversationId)
}

func gettingStartedContinue(client: ChatbaseClient) async throws {
    let first = try await client.send("Plan a trip to Rome")
    let next = try await client.send("Make it three days", conversationId: first.conversationId)
    print(next.message.text, next.finishReason, next.usage.credits)
}

// MARK: ChatStreamClient.docc/Streaming.md

func streamingCallbacks(client: ChatbaseClient) async throws {
    let response = try await client.send("Tell me a story") { callbacks in
        callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
        callbacks.onToolCall = { call in print("calling", call.toolName) }
    }
    print(response.message.text)
}

func streamingUpdates(client: ChatbaseClient) async throws {
    for try await update in client.updates(sending: "Tell me a story") {
        if case .textDelta(_, let delta) = update.event {
            print(delta, terminator: "")
        }
    }
}

// MARK: ChatStreamClient.docc/HistoryAndPagination.md

func historyPages(client: ChatbaseClient) async throws {
    var page: PaginatedResponse<Conversation>? = try await client.listConversations(limit: 20)
    while let current = page {
        for conversation in current.data { print(conversation.id, conversation.title ?? "untitled") }
        page = try await current.loadMore()
    }
}

func historyMessages(client: ChatbaseClient, conversationId: String) async throws {
    let messages = try await client.listMessages(conversationId: conversationId, limit: 50)
    for message in messages.data { print(message.sender, message.text) }
}

func historyEveryConversation(client: ChatbaseClient) async throws {
    for try await conversation in client.conversations(matching: ConversationQuery().limit(50)) {
        print(conversation.id, conversation.status)
    }
}

func historyFilters(client: ChatbaseClient) async throws {
    let query = ConversationQuery().limit(30).status(.ongoing).tag("vip").order(.ascending)
    let vip = try await client.listConversations(query)
    print(vip.data.count, vip.hasMore)
}

// MARK: ChatStreamClient.docc/Tools.md

func toolsRegister(client: ChatbaseClient) async throws {
    client.tool("get_weather") { input in
        let city = input["city"]?.stringValue ?? "nowhere"
        return .object(["city": .string(city), "forecast": "sunny"])
    }
    let reply = try await client.send("What's the weather in Rome?") { callbacks in
        callbacks.onToolResult = { result in print(result.toolName, result.output) }
    }
    print(reply.message.text)
}

// MARK: ChatStreamClient.docc/Identity.md

func identitySignIn(client: ChatbaseClient, jwt: String) async throws {
    try await client.identify(token: jwt)
    if case .identified = client.authState { print("signed in as", client.currentUserId ?? "?") }
    client.logout()
}

func identityStore() throws {
    let store = FileIdentityStore(directory: URL(fileURLWithPath: "/var/lib/myapp/chat"))
    let chat = ChatbaseClient(
        agentId: "demo-agent", baseURL: URL(string: "http://127.0.0.1:8787")!, identityStore: store)
    print(chat.deviceId)
}

// MARK: ChatStreamClient.docc/Errors.md

func errorsCatch(client: ChatbaseClient, conversationId: String?) async throws {
    do {
        _ = try await client.send("hi", conversationId: conversationId)
    } catch let error as APIError where error.isRateLimited {
        try await Task.sleep(for: .seconds(error.retryAfter ?? 1))
    } catch let error as APIError where error.isConversationNotOngoing {
        client.newConversation()
    } catch ChatError.toolLoopLimitExceeded(let limit) {
        print("still asking for tools after \(limit) rounds")
    } catch let error as APIError where error.apiCode == APIErrorDetail.streamingErrorCode {
        print("the model failed; so far:", error.replyStreamError?.partialMessage.text ?? "")
    } catch {
        print(error.localizedDescription)
    }
}

// MARK: ChatStreamClient.docc/SwiftUIState.md

@MainActor func showChat(client: ChatbaseClient) async {
    let list = ConversationListState(client: client)
    let chat = ConversationState(client: client)
    chat.onReply = { [weak list] response in list?.apply(response) }
    await list.load(limit: 30)
    await chat.sendMessage("Hello")
    print(chat.messages.count, list.conversations.count)
}

#if canImport(SwiftUI)
    import SwiftUI

    struct ConversationsView: View {
        @State var list: ConversationListState

        var body: some View {
            List(list.conversations) { conversation in
                Text(conversation.title ?? "Untitled")
            }
            .task { await list.load() }
        }
    }
#endif

@MainActor func followLive(client: ChatbaseClient, conversationId: String) async {
    let list = ConversationListState(client: client)
    let chat = ConversationState(client: client, conversationId: conversationId)
    await list.load()
    await chat.loadHistory(conversationId: conversationId)
    list.startLive()
    chat.startLive()
    // ... later, when the screen goes away:
    print(chat.canSend, chat.typingParticipants, list.typingConversationIds)
    chat.stopLive()
    list.stopLive()
}

// MARK: ChatStream.docc/DecodingStreams.md

func decodingAssembled(body: HTTPBody) async throws {
    for try await message in body.assembledMessages(format: .uiMessageStream) {
        print(message.text)
    }
}

func decodingByHand(chunks: [[UInt8]]) throws {
    var decoder = MessageDecoder<AnthropicDialect>()
    for chunk in chunks {
        try decoder.feed(chunk)
    }
    let reply = decoder.finish()[0]
    print(reply.text, reply.finishReason.map { "\($0)" } ?? "unfinished")
}

func decodingFramedElements(body: HTTPBody) async throws {
    for try await element in body.jsonArrayElements() {
        print(element.byteOffset, String(decoding: element.bytes, as: UTF8.self))
    }
}

// MARK: ChatStreamClient.docc/MigratingFromChatbaseSDK.md

func migrated() async throws {
    let client = ChatbaseClient(agentId: "YOUR_AGENT_ID")
    let response = try await client.send("Hello") { callbacks in
        callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
    }
    print(response.message.text, response.finishReason, response.usage.credits)
}

// OfflineHistoryAndRetries.md

func catalogOfflineHistory() async throws {
    let store = try HistoryStore(path: "/tmp/chat-history.sqlite")
    let client = ChatbaseClient(agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787/api/sdk")!, store: store)
    for try await page in client.conversationPages(ConversationQuery(limit: 20)) {
        print(page.data.map(\.id))   // the cached page, then the server's
    }
}

func catalogOutbox(client: ChatbaseClient) async throws {
    let flush = try await client.flushOutbox()
    for delivery in flush.delivered { print(delivery.message.text, "->", delivery.response.message.text) }
    for waiting in flush.remaining { print(waiting.state, waiting.lastError ?? "") }
}

func catalogRetries() {
    let patient = ChatbaseClient(
        agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787/api/sdk")!,
        retryPolicy: .init(maxAttempts: 5, baseDelay: .milliseconds(250), maxDelay: .seconds(4), totalBudget: .seconds(15)))
    _ = patient
}

// MARK: ChatStreamLive.docc/LiveConversationEvents.md

func liveEventsDrafts(bytes: [UInt8]) throws {
    var drafts = LiveMessageDrafts()
    var decoder = ConversationEventDecoder(format: .salesforceMessaging)
    for event in try decoder.feed(bytes) {
        drafts.apply(event)
        switch event.kind {
        case .messageDelta(_, let delta): print("draft:", drafts.text(of: delta.messageId) ?? "")
        case .messageCreated(let message): print(message.sender, message.text, message.content.options.map(\.title))
        default: break
        }
    }
}

// MARK: ChatStreamClient.docc/Delivery.md

@MainActor func deliveryStates(client: ChatbaseClient) async {
    let chat = ConversationState(client: client)
    await chat.sendMessage("Order #1 please")
    if let row = chat.messages.first(where: { $0.sender == .user }) {
        switch row.delivery {
        case .pending?: print("offline: it goes by itself")
        case .sending?: print("on its way")
        case .sent?: print("the server has it")
        case .failed?: await chat.resend(rowId: row.id)
        case nil: break
        }
    }
}

@MainActor func deliveryOutbox() async {
    let client = ChatbaseClient(
        agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787/api/sdk")!, outbox: .automatic)
    let chat = ConversationState(client: client, conversationId: nil, outbox: .automatic)
    await chat.sendMessage("Sent from the subway")   // pending while offline, sent by itself later
}

func deliveryResume(client: ChatbaseClient) async throws {
    let response = try await client.send("Tell me a long story") { callbacks in
        callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }   // each byte once, across reconnections
    }
    print("\n\(response.message.text.count) characters, finished: \(response.finishReason)")
}

func deliveryTimeouts() async throws {
    let client = ChatbaseClient(
        agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787/api/sdk")!,
        idleTimeout: .seconds(20))          // no byte, or no event of a reply, for 20 s: resumed
    client.totalTimeout = .seconds(300)     // no request longer than 5 minutes
    let options = LiveEventOptions(idleTimeout: .seconds(45))   // neither an event nor `: ping` for 45 s: reconnect
    for try await event in client.events(options: options) {
        print(event.kind)
    }
}

@MainActor func deliveryStop(chat: ConversationState) async {
    Task { await chat.sendMessage("Write a long story") }
    // From the Stop button:
    await chat.stop()
}

// MARK: ChatStreamClient.docc/LiveUpdates.md

func catalogLiveState() {
    func watch(client: ChatbaseClient) async throws {
        let events = client.events()
        for try await event in events {
            print(events.state, event.kind)   // .live once the server confirmed the subscription
        }
    }
}

func catalogShowLive() {
    @MainActor func showLive(list: ConversationListState) async {
        await list.load()
        list.startLive()
        if case .reconnecting(let delay) = list.liveState { print("reconnecting in", delay) }
    }
}

@MainActor func deliveryBackground(client: ChatbaseClient) async throws {
    // In the app's scene, when it becomes active again:
    func sceneBecameActive(_ chat: ConversationState) async {
        await chat.resume()
    }

    // At launch, for every conversation at once:
    let finished = try await client.completeRepliesInFlight()
    print("\(finished.count) replies finished after the last launch")
}
