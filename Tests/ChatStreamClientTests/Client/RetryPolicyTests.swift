// RetryPolicy: its delays with a deterministic jitter source, and the client's retries over
// loopback against ChatAPIServer (injected 503 and 429 faults, a stopped server), cancellation
// during a wait, and the requests that must never be retried.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Jitter values handed out in order (then 1).
final class JitterSequence: Sendable {
    private let values: Mutex<[Double]>
    init(_ values: [Double]) { self.values = Mutex(values) }
    var jitter: ChatbaseClient.RetryPolicy.Jitter {
        .init { [self] in values.withLock { $0.isEmpty ? 1 : $0.removeFirst() } }
    }
}

@Suite("RetryPolicy and the client's retries", .blockingAllowed)
struct RetryPolicyTests {
    static let agent = "agent-retry"

    /// A policy whose waits are recorded in `waits` instead of slept.
    static func recording(
        _ waits: Shared<[Duration]>, maxAttempts: Int = 4, base: Duration = .milliseconds(100),
        cap: Duration = .milliseconds(300), budget: Duration = .seconds(30), jitter: [Double] = [],
        onSleep: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> ChatbaseClient.RetryPolicy {
        var policy = ChatbaseClient.RetryPolicy(
            maxAttempts: maxAttempts, baseDelay: base, maxDelay: cap, totalBudget: budget,
            jitter: JitterSequence(jitter).jitter)
        policy.sleep = { wait in
            waits.update { $0.append(wait) }
            onSleep(waits.value.count)
        }
        return policy
    }

    static func startServer(port: UInt16 = 0) throws -> ChatAPIServer {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = port
        configuration.agentId = agent
        configuration.replyDelay = .zero
        configuration.http.shutdownGracePeriod = .seconds(1)
        return try startRetryingBind(configuration)
    }

    /// Starts a server with `configuration`; a fixed port just freed may still be some other
    /// connection's source port for a moment, so a refused bind is tried again for up to 60 s.
    static func startRetryingBind(_ configuration: ChatAPIServer.Configuration) throws -> ChatAPIServer {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let server = ChatAPIServer(configuration: configuration)
            do {
                try server.start()
                return server
            } catch  where configuration.port != 0 && ContinuousClock.now < deadline && "\(error)".contains("in use") {
                usleep(50_000)
            }
        }
    }

    /// A client of `port` over URLSession whose every request is recorded.
    static func client(port: UInt16, policy: ChatbaseClient.RetryPolicy) -> (ChatbaseClient, FakeTransport) {
        let inner = URLSessionTransport()
        let transport = FakeTransport { try await inner.send($0) }
        let client = ChatbaseClient(
            agentId: agent, baseURL: URL(string: "http://127.0.0.1:\(port)/api/sdk")!, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()), retryPolicy: policy)
        return (client, transport)
    }

    // MARK: Delays

    @Test func fullJitterScalesTheCappedExponentialBound() {
        let policy = ChatbaseClient.RetryPolicy(
            maxAttempts: 6, baseDelay: .milliseconds(100), maxDelay: .milliseconds(300),
            jitter: JitterSequence([0.5, 1, 0.25, 0, 1]).jitter)
        #expect(policy.backoffBound(retry: 0) == .milliseconds(100))
        #expect(policy.backoffBound(retry: 1) == .milliseconds(200))
        #expect(policy.backoffBound(retry: 2) == .milliseconds(300))
        #expect(policy.backoffBound(retry: 40) == .milliseconds(300))
        #expect(policy.delay(retry: 0) == .milliseconds(50))
        #expect(policy.delay(retry: 1) == .milliseconds(200))
        #expect(policy.delay(retry: 2) == .milliseconds(75))
        // Retry-After is a floor over the jittered draw, even past the cap.
        #expect(policy.delay(retry: 3, retryAfter: .seconds(2)) == .seconds(2))
        #expect(policy.delay(retry: 0, retryAfter: .milliseconds(10)) == .milliseconds(100))
    }

    @Test func jitterOutsideZeroToOneIsClamped() {
        let policy = ChatbaseClient.RetryPolicy(
            baseDelay: .milliseconds(100), maxDelay: .seconds(1), jitter: JitterSequence([-3, 7]).jitter)
        #expect(policy.delay(retry: 0) == .zero)
        #expect(policy.delay(retry: 0) == .milliseconds(100))
    }

    @Test func retryAfterIsReadAsSecondsOrHTTPDate() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(ErrorMapping.parseRetryAfter("3", now: now) == 3)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: now.addingTimeInterval(5))
        #expect(ErrorMapping.parseRetryAfter(date, now: now) == 5)
        #expect(ErrorMapping.parseRetryAfter("soon", now: now) == nil)
    }

    // MARK: Retries over loopback

    @Test func chatRetriedThrough503sWithTheSameClientMessageIdIsStoredOnce() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        server.injectFault(.init(status: 503, retryAfterSeconds: 0, count: 2))
        let waits = Shared<[Duration]>([])
        let (client, transport) = Self.client(port: server.port, policy: Self.recording(waits, jitter: [0.5, 0.5]))
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let response = try await client.send("hello through the faults")
            let chats = transport.requests.filter { $0.route == "chat" }
            #expect(chats.count == 3)
            let ids = Set(chats.map { $0.json["clientMessageId"]?.stringValue })
            #expect(ids.count == 1)
            let id = try #require(ids.first ?? nil)
            #expect(UUID(uuidString: id) != nil && id == id.lowercased())
            // The backoff with jitter 0.5: half of 100 ms, then half of 200 ms.
            #expect(waits.value == [.milliseconds(50), .milliseconds(100)])
            let history = try await client.listMessages(conversationId: response.conversationId)
            #expect(history.data.filter { $0.sender == .user }.map(\.text) == ["hello through the faults"])
        }
    }

    @Test func retryAfterFromA429IsWaitedAtLeast() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        server.injectFault(.init(status: 429, retryAfterSeconds: 2, count: 1))
        let waits = Shared<[Duration]>([])
        let (client, transport) = Self.client(port: server.port, policy: Self.recording(waits, jitter: [1]))
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            _ = try await client.send("after the limit")
            #expect(transport.requests.filter { $0.route == "chat" }.count == 2)
            #expect(waits.value == [.seconds(2)])
        }
    }

    @Test func aRetryAfterBeyondTheBudgetIsThrownAtOnce() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        server.injectFault(.init(status: 429, retryAfterSeconds: 60, count: 1))
        let waits = Shared<[Duration]>([])
        let (client, transport) = Self.client(
            port: server.port, policy: Self.recording(waits, budget: .seconds(10)))
        await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let error = await #expect(throws: APIError.self) { try await client.send("too soon") }
            #expect(error?.isRateLimited == true)
            #expect(error?.retryAfter == 60)
            #expect(transport.requests.count == 1)
            #expect(waits.value.isEmpty)
        }
    }

    @Test func theTotalBudgetBoundsTheSumOfWaits() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        server.injectFault(.init(status: 503, retryAfterSeconds: 0, count: 5))
        let waits = Shared<[Duration]>([])
        // Waits of 100, 200, 300 ms: the third would pass the 350 ms budget.
        let (client, transport) = Self.client(
            port: server.port, policy: Self.recording(waits, maxAttempts: 6, budget: .milliseconds(350)))
        await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let error = await #expect(throws: APIError.self) { try await client.send("budget") }
            #expect(error?.statusCode == 503)
            #expect(waits.value == [.milliseconds(100), .milliseconds(200)])
            #expect(transport.requests.count == 3)
        }
    }

    @Test func aRegenerateIsNeverRetried() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let waits = Shared<[Duration]>([])
        let (client, transport) = Self.client(port: server.port, policy: Self.recording(waits))
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let first = try await client.send("question")
            let replyId = first.message.id
            server.injectFault(.init(status: 503, retryAfterSeconds: 0, count: 1))
            let before = transport.requests.count
            let error = await #expect(throws: APIError.self) {
                try await client.retry(conversationId: first.conversationId, messageId: replyId)
            }
            #expect(error?.statusCode == 503)
            #expect(transport.requests.count == before + 1)
            #expect(waits.value.isEmpty)
        }
    }

    @Test func aChatWithoutClientMessageIdIsNotRetried() async throws {
        let waits = Shared<[Duration]>([])
        let transport = FakeTransport { _ in Wire.error(503, "INTERNAL_SERVER_ERROR") }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()),
            retryPolicy: Self.recording(waits))
        // A continuation round (after tool results) carries no clientMessageId.
        let error = await #expect(throws: APIError.self) {
            _ = try await client.runLoop(from: .chat(message: nil, conversationId: "c1"), streaming: true) { _ in }
        }
        #expect(error?.statusCode == 503)
        #expect(transport.requests.count == 1)
        #expect(waits.value.isEmpty)
    }

    @Test func otherErrorStatusesAreNotRetried() async throws {
        let waits = Shared<[Duration]>([])
        for status in [400, 401, 403, 404, 409, 500] {
            let transport = FakeTransport { _ in Wire.error(status, "SOME_CODE") }
            let client = ChatbaseClient(
                agentId: "agent-1", baseURL: Wire.base, transport: transport,
                identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()),
                retryPolicy: Self.recording(waits))
            await #expect(throws: APIError.self) { _ = try await client.listConversations() }
            #expect(transport.requests.count == 1, "status \(status)")
        }
        #expect(waits.value.isEmpty)
    }

    @Test func listsAreRetriedOn502503504WithAnHTTPDateRetryAfter() async throws {
        let waits = Shared<[Duration]>([])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let statuses = Shared([502, 503, 504])
        let transport = FakeTransport { request in
            let next: Int? = statuses.value.first
            statuses.update { if !$0.isEmpty { $0.removeFirst() } }
            guard let status = next else {
                return Wire.page([Wire.conversationJSON("c1", updated: 1)], request: request)
            }
            let date = formatter.string(from: Date().addingTimeInterval(4))
            return Wire.error(status, "UPSTREAM", headers: status == 503 ? ["Retry-After": date] : [:])
        }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()),
            retryPolicy: Self.recording(waits, jitter: [0, 0, 0]))
        let page = try await client.listConversations()
        #expect(page.data.map(\.id) == ["c1"])
        #expect(transport.requests.count == 4)
        #expect(waits.value.count == 3)
        #expect(waits.value[0] == .zero && waits.value[2] == .zero)
        // The HTTP date four seconds ahead: at least three whole seconds are waited.
        #expect(waits.value[1] >= .seconds(3) && waits.value[1] <= .seconds(4))
    }

    @Test func aListWaitsOutAStoppedServerThatComesBack() async throws {
        let reserved = try ReservedPort()
        let restarted = Shared<ChatAPIServer?>(nil)
        let opened = Shared<FaultProxy?>(nil)
        defer {
            opened.value?.stop()
            restarted.value?.stop()
        }
        let waits = Shared<[Duration]>([])
        let policy = Self.recording(waits) { count in
            // The server comes up on the client's port during the second wait.
            if count == 2, let server = try? Self.startServer() {
                restarted.value = server
                opened.value = try? reserved.open(forwardingTo: server.port)
            }
        }
        let (client, transport) = Self.client(port: reserved.port, policy: policy)
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let page = try await client.listConversations()
            #expect(opened.value != nil)
            #expect(page.data.isEmpty)
            #expect(transport.requests.count == 3)
            #expect(waits.value.count == 2)
        }
    }

    @Test func anUnreachableServerFailsAfterMaxAttempts() async throws {
        let reserved = try ReservedPort()
        let waits = Shared<[Duration]>([])
        let (client, transport) = Self.client(port: reserved.port, policy: Self.recording(waits, maxAttempts: 3))
        await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let error = await #expect(throws: APIError.self) { _ = try await client.listConversations() }
            #expect(error?.isTransient == true)
            #expect(transport.requests.count == 3)
            #expect(waits.value.count == 2)
        }
    }

    @Test func cancellationEndsAWaitAtOnce() async throws {
        let transport = FakeTransport { _ in Wire.error(503, "INTERNAL_SERVER_ERROR") }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()),
            retryPolicy: .init(
                maxAttempts: 5, baseDelay: .seconds(900), maxDelay: .seconds(900), totalBudget: .seconds(3600),
                jitter: .none))
        let task = Task { try await client.listConversations() }
        #expect(await eventually(timeout: .seconds(30)) { transport.requests.count == 1 })
        try await Task.sleep(for: .milliseconds(50))
        let cancelled = ContinuousClock.now
        task.cancel()
        let result = await task.result
        // The wait was 900 s: ending well inside it shows cancellation cut it short, with room for
        // a loaded machine's scheduling (a parallel suite on two busy cores once delayed the task by
        // 65 s).
        #expect(ContinuousClock.now - cancelled < .seconds(450))
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: [
        TransportError(.connectionFailed, "refused"), TransportError(.timedOut, "no head in time"),
        TransportError(.connectionLost, "reset before the head"),
    ])
    func transportFailuresOfAGetAreRetried(failure: TransportError) async throws {
        let waits = Shared<[Duration]>([])
        let failures = Shared(2)
        let transport = FakeTransport { request in
            let left = failures.value
            failures.value = left - 1
            if left > 0 { throw failure }
            return Wire.page([Wire.conversationJSON("c1", updated: 1)], request: request)
        }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()),
            retryPolicy: Self.recording(waits), store: nil)
        #expect(try await client.listConversations().data.map(\.id) == ["c1"])
        #expect(transport.requests.count == 3)
        #expect(waits.value.count == 2)
    }

    @Test(arguments: [URLError.Code.cannotConnectToHost, .timedOut, .networkConnectionLost, .notConnectedToInternet])
    func urlErrorsOfUnreachableServersAreRetried(code: URLError.Code) async throws {
        let waits = Shared<[Duration]>([])
        let failures = Shared(1)
        let transport = FakeTransport { request in
            let left = failures.value
            failures.value = left - 1
            if left > 0 { throw URLError(code) }
            return Wire.page([], request: request)
        }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()),
            retryPolicy: Self.recording(waits), store: nil)
        _ = try await client.listConversations()
        #expect(transport.requests.count == 2)
    }

    @Test func malformedAnswersAndRefusedRedirectsAreNotRetried() async throws {
        for failure in [
            TransportError(.invalidResponse, "not HTTP"), TransportError(.redirectRefused, "other origin"),
            TransportError(.headerTooLarge, "huge head"),
        ] {
            let transport = FakeTransport { _ in throw failure }
            let client = ChatbaseClient(
                agentId: "agent-1", baseURL: Wire.base, transport: transport,
                identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()),
                retryPolicy: Self.recording(Shared([])), store: nil)
            await #expect(throws: (any Error).self) { _ = try await client.listConversations() }
            #expect(transport.requests.count == 1, "\(failure)")
        }
    }

    @Test func retryPolicyNoneNeverRetries() async throws {
        let transport = FakeTransport { _ in Wire.error(503, "INTERNAL_SERVER_ERROR") }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: ChatStreamPaths.newDeviceId()), retryPolicy: .none)
        await #expect(throws: APIError.self) { _ = try await client.listConversations() }
        await #expect(throws: APIError.self) { _ = try await client.send("hi") }
        #expect(transport.requests.count == 2)
    }
}
