// ChatbaseClient against the real ChatAPIServer over loopback HTTP (URLSessionTransport).

import ChatStream
import ChatStreamServer
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("ChatbaseClient end to end against ChatAPIServer", .blockingAllowed)
struct EndToEndTests {
    static let agent = "agent-e2e"

    static func withServer<T>(
        extensions: Bool = true, _ body: (ChatAPIServer, @Sendable (String?) -> ChatbaseClient) async throws -> T
    ) async throws -> T {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.agentId = agent
        configuration.replyDelay = .zero
        configuration.extensionsEnabled = extensions
        configuration.http.shutdownGracePeriod = .seconds(3)
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/api/sdk")!
        // Off the cooperative pool, as HTTPTestServer.with does (its comment says why).
        return try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            try await body(server) { device in
                ChatbaseClient(
                    agentId: agent, baseURL: url,
                    identityStore: InMemoryIdentityStore(deviceId: device ?? ChatStreamPaths.newDeviceId()),
                    retryPolicy: .init(maxAttempts: 3, baseDelay: .milliseconds(5), totalBudget: .seconds(2)),
                    store: nil)
            }
        }
    }

    /// A development JWT for `subject` (the server does not check signatures).
    static func token(_ subject: String) -> String {
        func segment(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return segment(#"{"alg":"none","typ":"JWT"}"#) + "." + segment(#"{"sub":"\#(subject)"}"#) + ".c2ln"
    }

    @Test func newConversationThenContinue() async throws {
        try await Self.withServer { _, makeClient in
            let client = makeClient(nil)
            var assignedBeforeFinish = false
            var text = ""
            for try await update in client.updates(sending: "hello") {
                if case .conversationAssigned = update.event {
                    assignedBeforeFinish = update.message.finishReason == nil
                }
                if case .textDelta(_, let delta) = update.event { text += delta }
            }
            #expect(assignedBeforeFinish)
            #expect(text.contains("hello"))
            let id = try #require(client.currentConversationId)
            let second = try await client.send("again", conversationId: id)
            #expect(second.conversationId == id)
            #expect(second.userMessageId != nil)
            let third = try await client.send("fresh")
            #expect(third.conversationId != id)
            let history = try await client.listMessages(conversationId: id)
            #expect(history.data.map(\.sender) == [.user, .agent, .user, .agent])
            #expect(history.data[2].text == "again")
            let plain = try await client.sendNonStreaming("no stream", conversationId: id)
            #expect(plain.conversationId == id)
            #expect(plain.message.text.contains("no stream"))
        }
    }

    @Test func paginationOverThreePagesInBothLists() async throws {
        try await Self.withServer { _, makeClient in
            let client = makeClient(nil)
            var ids: [String] = []
            for index in 0..<7 { ids.append(try await client.send("conversation \(index)").conversationId) }
            for index in 0..<4 { _ = try await client.send("more \(index)", conversationId: ids[0]) }

            var pages: [[String]] = []
            var page: PaginatedResponse<Conversation>? = try await client.listConversations(limit: 3)
            while let current = page {
                pages.append(current.data.map(\.id))
                #expect(current.limit == 3)
                page = try await current.loadMore()
            }
            #expect(pages.map(\.count) == [3, 3, 1])
            #expect(Set(pages.joined()) == Set(ids))
            #expect(pages[0][0] == ids[0])  // most recently updated first

            var messagePages: [[Message]] = []
            var messages: PaginatedResponse<Message>? = try await client.listMessages(conversationId: ids[0], limit: 3)
            while let current = messages {
                messagePages.append(current.data)
                messages = try await current.loadMore()
            }
            #expect(messagePages.count >= 3)
            let chronological = messagePages.reversed().joined().filter { $0.sender == .user }.map(\.text)
            #expect(chronological == ["conversation 0", "more 0", "more 1", "more 2", "more 3"])
            var streamed: [String] = []
            for try await message in client.messages(in: ids[0], pageSize: 3) { streamed.append(message.id) }
            #expect(streamed == Array(messagePages.reversed().joined().map(\.id).reversed()))
        }
    }

    @Test func endedConversationAnswers403() async throws {
        try await Self.withServer { server, makeClient in
            let client = makeClient(nil)
            let id = try await client.send("hi").conversationId
            #expect(server.endConversation(id: id))
            let error = await #expect(throws: APIError.self) {
                try await client.send("more", conversationId: id)
            }
            #expect(error?.statusCode == 403)
            #expect(error?.isConversationNotOngoing == true)
        }
    }

    @Test func rateLimitWithRetryAfter() async throws {
        try await Self.withServer { server, makeClient in
            server.injectFault(.init(status: 429, retryAfterSeconds: 3))
            let client = makeClient(nil)
            let error = await #expect(throws: APIError.self) { try await client.send("hi") }
            #expect(error?.isRateLimited == true)
            #expect(error?.apiCode == "RATE_LIMIT_TOO_MANY_REQUESTS")
            #expect(error?.retryAfter == 3)
            _ = try await client.send("after the fault")
        }
    }

    /// The server cuts the stream (and has no resume route here): the reply is completed from
    /// history, each byte handed over once.
    @Test func aDroppedConnectionIsCompletedOnce() async throws {
        try await Self.withServer { server, makeClient in
            server.injectFault(.init(chunkSize: 16, dropAfterBytes: 400))
            let client = makeClient(nil)
            let seen = HandedOver()
            let response = try await client.send("a long enough message to be cut", configure: seen.configure)
            #expect(seen.value == response.message.text)
            let stored = try await client.listMessages(conversationId: response.conversationId).data
            #expect(stored.last?.id == response.message.id)
            #expect(stored.last?.text == response.message.text)
            #expect(response.message.text.hasPrefix("You said: a long enough message to be cut."))
        }
    }

    /// Without retries a cut stream fails at once, with what arrived kept.
    @Test func droppedConnectionWithoutRetriesGivesTruncationWithPartialMessage() async throws {
        try await Self.withServer { server, _ in
            server.injectFault(.init(chunkSize: 16, dropAfterBytes: 400))
            let client = ChatbaseClient(
                agentId: Self.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)/api/sdk")!,
                identityStore: InMemoryIdentityStore(), retryPolicy: .none, store: nil)
            let error = await #expect(throws: APIError.self) {
                try await client.send("a long enough message to be cut")
            }
            #expect(error?.replyStreamError?.streamError.kind == .truncated)
            #expect(error?.replyStreamError?.partialMessage.error?.code == "STREAM_TRUNCATED")
        }
    }

    @Test func cancellingStopsTheServersStream() async throws {
        try await Self.withServer { server, makeClient in
            // Paced so the whole reply would take about two minutes (about 150 chunks, 0.8 s apart):
            // the bounds below leave a loaded machine plenty of room and still fail if the body is
            // read to its end instead of cancelled.
            server.injectFault(.init(chunkSize: 32, delay: .milliseconds(800)))
            let long = "cancel me please, this reply is long. " + String(repeating: "word ", count: 400)
            let observing = ObservingTransport(base: URLSessionTransport())
            let client = ChatbaseClient(
                agentId: Self.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: observing,
                identityStore: InMemoryIdentityStore())
            var sawDelta = false
            for try await update in client.updates(sending: long) {
                if case .textDelta = update.event {
                    sawDelta = true
                    break
                }
            }
            #expect(sawDelta)
            // Timed from the break, so a loaded machine's slow first delta does not count.
            let stopped = ContinuousClock.now
            // The response body was cancelled, not read to its end (that would take two minutes).
            #expect(await eventually(timeout: .seconds(60)) { observing.outcomes.value == ["cancelled"] })
            #expect(ContinuousClock.now - stopped < .seconds(70))
            // The server is free for the next request at once.
            let next = try await client.send("next")
            #expect(next.finishReason == .stop)
        }
    }

    @Test func toolLoopRunsTheHandlerAndContinues() async throws {
        try await Self.withServer { _, makeClient in
            let client = makeClient(nil)
            let inputs = Mutex<[JSONValue]>([])
            client.tool("get_weather") { input in
                inputs.withLock { $0.append(input) }
                return ["city": input["city"] ?? .null, "forecast": "sunny, 24C"]
            }
            let response = try await client.send("what's the weather in Rome?")
            #expect(inputs.withLock { $0 } == [["city": "Rome"]])
            #expect(response.finishReason == .stop)
            #expect(response.message.text.contains("sunny, 24C"))
        }
    }

    @Test func identifyMergesTheDevicesConversations() async throws {
        try await Self.withServer { _, makeClient in
            let phone = makeClient(nil)
            let anonymous = try await phone.send("from the phone").conversationId
            try await phone.identify(token: Self.token("user-42"))
            let laptop = makeClient(nil)
            #expect(try await laptop.listConversations().data.isEmpty)
            try await laptop.identify(token: Self.token("user-42"))
            let listed = try await laptop.listConversations().data
            #expect(listed.map(\.id) == [anonymous])
            #expect(listed.first?.userId == "user-42")
            let error = await #expect(throws: APIError.self) { try await laptop.identify(token: "not-a-jwt") }
            #expect(error?.statusCode == 401)
        }
    }

    @Test func conversationManagementExtensions() async throws {
        try await Self.withServer { server, makeClient in
            let client = makeClient(nil)
            let first = try await client.send("alpha invoice").conversationId
            let second = try await client.send("beta").conversationId
            #expect(try await client.conversation(id: first).status == .ongoing)
            let tagged = try await client.setTags(["vip", "billing"], conversationId: first)
            #expect(tagged.tags == ["vip", "billing"])
            let closed = try await client.closeConversation(id: second)
            #expect(closed.status == .ended)
            let ongoing = try await client.listConversations(ConversationQuery().status(.ongoing))
            #expect(ongoing.data.map(\.id) == [first])
            let vip = try await client.listConversations(ConversationQuery().tag("vip"))
            #expect(vip.data.map(\.id) == [first])
            let search = try await client.listConversations(ConversationQuery().search("INVOICE"))
            #expect(search.data.map(\.id) == [first])
            let ascending = try await client.listConversations(ConversationQuery().order(.ascending))
            #expect(ascending.data.map(\.id) == [first, second])
            let messageId = try #require(server.addAgentMessage(conversationId: first, text: "a human says hi"))
            #expect((try await client.conversation(id: first).unreadCount ?? 0) > 0)
            let read = try await client.markRead(conversationId: first, messageId: messageId)
            #expect(read.unreadCount == 0)
            let missing = await #expect(throws: APIError.self) { try await client.conversation(id: "nope") }
            #expect(missing?.isNotFound == true)
            #expect(missing?.statusCode == 404)
        }
    }

    @Test func aServerWithoutExtensionsIsReportedAsNotSupported() async throws {
        try await Self.withServer(extensions: false) { _, makeClient in
            let client = makeClient(nil)
            let id = try await client.send("hi").conversationId
            let error = await #expect(throws: APIError.self) { try await client.closeConversation(id: id) }
            #expect(error?.isNotSupportedByServer == true)
            #expect(error?.description.hasPrefix("not supported by this server: ") == true)
            let lookup = await #expect(throws: APIError.self) { try await client.conversation(id: id) }
            #expect(lookup?.isNotSupportedByServer == true)
        }
    }
}

/// Passes requests to `base` and records how each response body ended: read to its end
/// ("finished"), failed ("failed"), or stopped by its consumer ("cancelled").
final class ObservingTransport: HTTPTransport {
    let base: any HTTPTransport
    let outcomes = Shared<[String]>([])

    init(base: any HTTPTransport) { self.base = base }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var response = try await base.send(request)
        let inner = response.body
        let outcomes = self.outcomes
        response.body = HTTPBody(
            AsyncThrowingStream { continuation in
                // On the network executor: an unstructured task does not inherit the test's executor
                // preference, and the cooperative pool may be held by long synchronous suites.
                let task = Task(executorPreference: NetworkTestExecutor.shared) {
                    do {
                        for try await chunk in inner { continuation.yield(chunk) }
                        outcomes.update { $0.append(Task.isCancelled ? "cancelled" : "finished") }
                        continuation.finish()
                    } catch {
                        outcomes.update { $0.append(Task.isCancelled ? "cancelled" : "failed") }
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            })
        return response
    }
}
