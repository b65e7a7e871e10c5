// swift-format-ignore-file
// (The blocks are kept exactly as the documentation shows them.)
// The README's Swift blocks, and those the README's former sections took with them into the DocC
// articles (each function says where its block is now), compiled (see DocBlocksAreCompiledTests
// and README.md here). Each function holds one block verbatim; its parameters supply what the
// block uses. The functions are never called: compiling them is the test.

import ChatStream
import ChatStreamClient
import ChatStreamFraming
import ChatStreamServer
import Foundation

// README.md, "Which rung for which need": the reply as it grows.
func readmeAssembledMessages(response: HTTPResponse) async throws {
    var currentConversation: String? = nil
    // Any async sequence of byte chunks: [UInt8], ArraySlice<UInt8> or Data.
    for try await message in response.body.assembledMessages(format: .uiMessageStream) {
        print(message.text)                      // the reply so far, after every event
        if let id = message.conversationId { currentConversation = id }
    }
    // A stream that is cut or carries an error still yields its final message (with `error` set),
    // then throws a StreamError (.truncated, .remote, .malformed with the byte offset).
    _ = currentConversation
}

// README.md, "Which rung for which need": StreamDecoder and MessageAssembler.
func readmeSynchronousDecoders(chunks: [[UInt8]]) throws {
    var decoder = StreamDecoder<AnthropicDialect>()      // or AnyStreamDecoder(format: nil) to detect the format
    var assembler = MessageAssembler()
    for chunk in chunks {
        try decoder.feed(chunk, into: &assembler)
    }
    try decoder.finish(into: &assembler)                 // throws StreamError(.truncated) without a terminator
    let message = assembler.finish()[0]
    _ = message
}

// README.md, "Which rung for which need": MessageDecoder.
func readmeMessageDecoder(chunks: [[UInt8]]) {
    var decoder = MessageDecoder<UIMessageStreamDialect>()
    for chunk in chunks {
        do { try decoder.feed(chunk) } catch { break }  // kept in decoder.failure
    }
    let reply = decoder.finish()[0]                       // decoder.message() reads it mid-stream
    _ = reply
}

// README.md, "Which rung for which need": the final replies.
func readmeFinalMessages(response: HTTPResponse) async throws {
    for try await reply in response.body.finalMessages(format: .uiMessageStream) {
        print(reply.text)                                 // once per choice, when the stream has ended
    }
    var decoder = AnyMessageDecoder(format: nil)          // nil: detect the format
    _ = decoder
}

// ChatStreamClient.docc/ClientInDetail.md (its first lines are also the README's client block).
func readmeClient() async throws {
    let client = ChatbaseClient(agentId: "demo-agent", baseURL: "http://127.0.0.1:8787")

    // send awaits the whole reply (tools included) and calls the callbacks while it streams.
    let response = try await client.send("Hello!") { callbacks in
        callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
    }
    print(response.conversationId, response.message.text, response.finishReason, response.usage.credits)

    // `conversationId: nil` always starts a new conversation: pass the ID to continue.
    let more = try await client.send("And then?", conversationId: response.conversationId)
    let whole = try await client.sendNonStreaming("In one piece", conversationId: more.conversationId)
    _ = whole
}

// ChatStreamClient.docc/ClientInDetail.md, every step of a reply.
func readmeUpdates(client: ChatbaseClient) async throws {
    for try await update in client.updates(sending: "Hi") {
        if case .textDelta(_, let delta) = update.event { print(delta, terminator: "") }
    }
}

// ChatStreamClient.docc/ClientInDetail.md, pages.
func readmePages(client: ChatbaseClient, response: ChatResponse) async throws {
    var page = try await client.listConversations(limit: 20)
    print("Total: \(page.total)")
    while let next = try await page.loadMore() { page = next }
    let messages = try await client.listMessages(conversationId: response.conversationId, limit: 50)
    _ = messages
}

// ChatStreamClient.docc/ClientInDetail.md, errors.
func readmeErrors(client: ChatbaseClient, response: ChatResponse) async throws {
    do {
        _ = try await client.send("hi", conversationId: response.conversationId)
    } catch let error as APIError where error.isRateLimited {
        try await Task.sleep(for: .seconds(error.retryAfter ?? 1))
    } catch APIError.httpError(_, let detail) where detail.code == "CHAT_CONVERSATION_NOT_ONGOING" {
        client.newConversation()
    } catch ChatError.toolLoopLimitExceeded(let limit) {
        print("gave up after \(limit) tool rounds")
    }
}

// ChatStreamClient.docc/ClientInDetail.md, retries.
func readmeRetryPolicy() {
    let patient = ChatbaseClient(
        agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787/api/sdk")!,
        retryPolicy: .init(maxAttempts: 6, baseDelay: .milliseconds(250), maxDelay: .seconds(4), totalBudget: .seconds(20)))
    let impatient = ChatbaseClient(agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787/api/sdk")!, retryPolicy: .none)
    _ = (patient, impatient)
}

func readmeHistoryStore() async throws {
    let cache = try HistoryStore(path: "/tmp/chat-history.sqlite")
    let offline = ChatbaseClient(agentId: "my-agent", baseURL: URL(string: "http://127.0.0.1:8787/api/sdk")!, store: cache)
    let cached = try await offline.listConversations(limit: 20, source: .local)        // no request
    for try await page in offline.conversationPages(ConversationQuery(limit: 20)) {   // cached, then fresh
        print(page.data.map(\.id))
    }
    let flush = try await offline.flushOutbox()                                       // queued messages
    print(cached.data.count, flush.delivered.count, flush.remaining.count)
}

func readmeIdentity(client: ChatbaseClient, jwt: String) async throws {
    try await client.identify(token: jwt)             // POST verify, then X-User-Token on every request
    client.logout()                                   // back to .anonymous; removes the saved token too
}

// ChatStreamClient.docc/ClientInDetail.md, tools.
func readmeTools(client: ChatbaseClient) async throws {
    client.tool("get_weather") { input in
        .object(["city": input["city"] ?? .null, "forecast": .string("sunny")])
    }
    let weather = try await client.send("What's the weather in Rome?")
    let again = try await client.retry(conversationId: weather.conversationId, messageId: weather.message.id)
    _ = again
}

// ChatStreamClient.docc/ClientInDetail.md, observable state.
@MainActor func readmeObservableState(client: ChatbaseClient, weather: ChatResponse) async throws {
    let chat = ConversationState(client: client)        // or conversationId: to reopen one
    let list = ConversationListState(client: client)

    await chat.sendMessage("Hello")                    // streams into a bubble; tool calls become cards
    await chat.loadHistory(conversationId: weather.conversationId, limit: 20)  // then loadMoreHistory()
    await list.load(limit: 20)                         // then loadMore(); list.hasMore, list.error

    // ChatStream's own: a live list, moved on every completed send, and closing from the list.
    chat.onReply = { [weak list] response in list?.apply(response) }
    await list.close(weather.conversationId)           // the row now shows .ended
}

// ChatStreamClient.docc/ConversationManagement.md.
func readmeConversationManagement(client: ChatbaseClient, id: String, messageId: String, response: ChatResponse) async throws {
    let conversation = try await client.conversation(id: id)      // tags, unreadCount, lastMessage
    try await client.closeConversation(id: id)                    // idempotent; later chats answer 403
    try await client.setTags(["vip", "billing"], conversationId: id)   // the caller's own tags (one-way)
    try await client.markRead(conversationId: id, messageId: messageId)

    // Filters combine with AND; the cursor carries them.
    let query = ConversationQuery().limit(50).status(.ongoing).tag("vip").unreadOnly().search("invoice")
        .order(.ascending)
    let page = try await client.listConversations(query)

    // Every item across pages, each once, the next page fetched only when needed; stops on cancellation.
    for try await conversation in client.conversations(matching: query) { print(conversation.id) }
    for try await message in client.messages(in: id, pageSize: 50) { print(message.text) }  // newest first

    // A conversation from a reply, to update a list without a refetch.
    let updated = Conversation(reply: response, previous: conversation)   // lastMessage, updatedAt, unreadCount + 1
    _ = (page, updated)
}

// ChatStreamServer.docc/LocalServer.md.
func readmeLocalServer(someId: String) throws {
    var configuration = ChatAPIServer.Configuration()
    configuration.port = 0                  // any free port; read server.port after start()
    configuration.replyDelay = .zero        // no pacing (default 15 ms between events)
    configuration.dataFile = "/tmp/chat.sqlite" // persist in SQLite (default: in memory)
    configuration.extensionsEnabled = true  // false: a plain Chatbase-like server
    let server = ChatAPIServer(configuration: configuration)
    try server.start()
    server.injectFault(.init(status: 429, retryAfterSeconds: 2))   // the next chat answers 429
    server.injectFault(.init(chunkSize: 16, dropAfterBytes: 400))  // the next reply is cut
    _ = server.endConversation(id: someId)                         // or takeOverConversation(id:)
    _ = server.addAgentMessage(conversationId: someId, text: "a human agent joins")
    server.stop()
}

// README.md, "Which rung for which need": each event with the message after it.
func readmeMessageUpdates(response: HTTPResponse) async throws {
    for try await update in response.body.messageUpdates(format: .openAIChat) {
        if case .textDelta(_, let delta) = update.event { print(delta, terminator: "") }
        if update.isFinal { print("\n", update.message.finishReason.map { "\($0)" } ?? "unfinished") }
    }
}

// README.md, "Which rung for which need": every event, owned.
func readmeStreamEvents(response: HTTPResponse) async throws {
    for try await event in response.body.streamEvents(format: nil) {   // nil: detect the format
        if case .toolInputAvailable(let id, let name, let input) = event { print(id, name, input) }
    }
}

// README.md, "Which rung for which need": a sink of your own.
func readmeSink(chunks: [[UInt8]]) throws {
    struct ByteCounter: StreamEventSink {
        var textBytes = 0
        mutating func textDelta(id: String, delta: CheckedUTF8) { delta.withSpan { textBytes += $0.byteCount } }
        mutating func event(_ event: StreamEvent) {}
    }
    var counter = ByteCounter()
    var decoder = StreamDecoder<OllamaDialect>()
    for chunk in chunks { try decoder.feed(chunk, into: &counter) }
    try decoder.finish(into: &counter)
}

// README.md, "Which rung for which need": the local server.
func readmeServer() throws {
    var configuration = ChatAPIServer.Configuration()
    configuration.port = 0                  // any free port; read server.port after start()
    let server = ChatAPIServer(configuration: configuration)
    try server.start()
    print("serving on port", server.port)  // ChatbaseClient(agentId: "demo-agent", baseURL: ...) talks to it
    server.stop()
}
