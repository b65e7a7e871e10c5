// client.events() against ChatAPIServer's GET /agents/{agentId}/events: every change exactly once,
// in order, across dropped connections and a server restart; only the caller's own events; a
// server without the route reported once; admin calls and typing reach the stream.

import ChatStream
import ChatStreamServer
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

/// Collects a live sequence's events from a task, for tests to wait on.
final class LiveCollector: Sendable {
    let events = Mutex<[LiveEvent]>([])
    let failure = Mutex<(any Error)?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ sequence: AsyncLiveEventSequence) {
        let started = Task(executorPreference: NetworkTestExecutor.shared) { [self] in
            do {
                for try await event in sequence { self.events.withLock { $0.append(event) } }
            } catch {
                self.failure.withLock { $0 = error }
            }
        }
        task.withLock { $0 = started }
    }

    var snapshot: [LiveEvent] { events.withLock { $0 } }

    /// Waits until `condition` holds for the events so far (polling), up to `timeout`.
    func wait(timeout: Duration = .seconds(90), _ condition: ([LiveEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(snapshot) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(snapshot)
    }

    func cancel() { task.withLock { $0?.cancel() } }
}

@Suite("Live events end to end against ChatAPIServer", .blockingAllowed)
struct LiveEventsEndToEndTests {
    static let agent = EndToEndTests.agent

    static func configuration(port: UInt16 = 0, dataFile: String? = nil, dropEvery: Int? = nil)
        -> ChatAPIServer.Configuration
    {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = port
        configuration.agentId = agent
        configuration.replyDelay = .zero
        configuration.dataFile = dataFile
        configuration.http.shutdownGracePeriod = .seconds(3)
        configuration.liveEvents.retryMilliseconds = 10
        configuration.liveEvents.dropEvery = dropEvery
        return configuration
    }

    static func client(_ port: UInt16, device: String, user: String? = nil) async throws -> ChatbaseClient {
        let client = ChatbaseClient(
            agentId: agent, baseURL: URL(string: "http://127.0.0.1:\(port)")!,
            identityStore: InMemoryIdentityStore(deviceId: device))
        if let user { try await client.identify(token: EndToEndTests.token(user)) }
        return client
    }

    static let fast = LiveEventOptions(defaultRetry: .milliseconds(10), maxDelay: .milliseconds(200), jitter: 0.5)

    /// The `change-N` tag numbers carried by the conversation.updated events, in arrival order.
    static func changes(_ events: [LiveEvent]) -> [Int] {
        events.compactMap { event -> Int? in
            guard case .conversationUpdated(let conversation) = event.kind,
                let tag = conversation.tags?.first(where: { $0.hasPrefix("change-") })
            else { return nil }
            return Int(tag.dropFirst(7))
        }
    }

    @Test func twoHundredChangesArriveOnceInOrderAcrossDropsAndARestart() async throws {
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString).json")
                .path
            // The store's file and its write-ahead log and index beside it.
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
            var server = ChatAPIServer(configuration: Self.configuration(dataFile: file, dropEvery: 10))
            try server.start()
            let port = server.port
            defer { server.stop() }
            // The subscriber is one device of user u1; the changes come from two other devices of u1.
            let subscriber = try await Self.client(port, device: "device-watch", user: "u1")
            let writers = [
                try await Self.client(port, device: "device-phone", user: "u1"),
                try await Self.client(port, device: "device-laptop", user: "u1"),
            ]
            let conversations = [
                try await writers[0].sendNonStreaming("first").conversationId,
                try await writers[1].sendNonStreaming("second").conversationId,
            ]
            let collector = LiveCollector(subscriber.events(options: Self.fast))
            defer { collector.cancel() }
            // The subscription is open once the server counts it.
            #expect(await TestWait.until { server.liveSubscriberCount == 1 })
            for change in 0..<200 {
                if change == 100 {
                    // A restart: the new process reads the data file, event log included.
                    #expect(await collector.wait { Self.changes($0).count >= 90 })
                    server.stop()
                    server = ChatAPIServer(configuration: Self.configuration(port: port, dataFile: file, dropEvery: 10))
                    try server.start()
                }
                let writer = writers[change % 2]
                _ = try await writer.setTags(["change-\(change)"], conversationId: conversations[change % 2])
            }
            #expect(await collector.wait { Self.changes($0).count >= 200 })
            let events = collector.snapshot
            #expect(Self.changes(events) == Array(0..<200))
            #expect(!events.contains { $0.kind == .reset })
            let ids = events.compactMap { $0.id.flatMap(Int.init) }
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "IDs strictly increase")
            #expect(collector.failure.withLock { $0 } == nil)
        }
    }

    @Test func aDeviceHearsOnlyItsOwnConversationsAndAUserAllTheirDevices() async throws {
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let server = ChatAPIServer(configuration: Self.configuration())
            try server.start()
            defer { server.stop() }
            let lonely = try await Self.client(server.port, device: "device-x")
            let other = try await Self.client(server.port, device: "device-y")
            let userPhone = try await Self.client(server.port, device: "device-p", user: "u2")
            let userTablet = try await Self.client(server.port, device: "device-t", user: "u2")
            let lonelyEvents = LiveCollector(lonely.events(options: Self.fast))
            let tabletEvents = LiveCollector(userTablet.events(options: Self.fast))
            defer {
                lonelyEvents.cancel()
                tabletEvents.cancel()
            }
            #expect(await TestWait.until { server.liveSubscriberCount == 2 })
            let mine = try await lonely.sendNonStreaming("mine").conversationId
            _ = try await other.sendNonStreaming("not yours")
            let shared = try await userPhone.sendNonStreaming("from my phone").conversationId
            #expect(await lonelyEvents.wait { $0.contains { $0.kind.isUpdate(of: mine) || $0.conversationId == mine } })
            #expect(await tabletEvents.wait { events in events.filter { $0.conversationId == shared }.count >= 3 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(Set(lonelyEvents.snapshot.compactMap(\.conversationId)) == [mine])
            #expect(Set(tabletEvents.snapshot.compactMap(\.conversationId)) == [shared])
            let kinds = tabletEvents.snapshot.map(\.kind.name)
            #expect(kinds.first == "conversation.created")
            #expect(kinds.filter { $0 == "message.created" }.count == 2)
        }
    }

    @Test func adminCallsAndTypingReachTheOwnersStream() async throws {
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let server = ChatAPIServer(configuration: Self.configuration())
            try server.start()
            defer { server.stop() }
            let client = try await Self.client(server.port, device: "device-a")
            let id = try await client.sendNonStreaming("help").conversationId
            let events = LiveCollector(client.events(options: Self.fast))
            defer { events.cancel() }
            #expect(await TestWait.until { server.liveSubscriberCount == 1 })
            server.setTyping(conversationId: id, active: true)
            let messageId = try #require(server.addAgentMessage(conversationId: id, text: "Sam here"))
            server.takeOverConversation(id: id)
            server.endConversation(id: id)
            #expect(await events.wait { $0.count >= 5 })
            let got = events.snapshot
            #expect(got.first?.kind == .typing(conversationId: id, participant: .humanAgent, active: true))
            guard case .messageCreated(let conversationId, let message) = got[1].kind else {
                Issue.record("the second event is \(got[1].kind)")
                return
            }
            #expect(conversationId == id && message.id == messageId && message.text == "Sam here")
            let statuses = got.compactMap { event -> ConversationStatus? in
                if case .conversationUpdated(let conversation) = event.kind { return conversation.status }
                return nil
            }
            #expect(statuses == [.ongoing, .takenOver, .ended])
            let derived = Conversation(conversationId: id, message: message)
            #expect(derived.lastMessage == message && derived.updatedAt == message.date)
        }
    }

    @Test func aStreamedReplyShowsTheAgentTyping() async throws {
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let server = ChatAPIServer(configuration: Self.configuration())
            try server.start()
            defer { server.stop() }
            let client = try await Self.client(server.port, device: "device-a")
            let events = LiveCollector(client.events(options: Self.fast))
            defer { events.cancel() }
            #expect(await TestWait.until { server.liveSubscriberCount == 1 })
            for try await _ in client.updates(sending: "hello there") {}
            #expect(await events.wait { $0.filter { $0.kind.name == "typing" }.count >= 2 })
            let typing = events.snapshot.compactMap { event -> Bool? in
                if case .typing(_, .agent, let active) = event.kind { return active }
                return nil
            }
            #expect(typing == [true, false])
        }
    }

    @Test func resumingFromAnIDTheServerNoLongerHoldsGivesReset() async throws {
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            var configuration = Self.configuration()
            configuration.liveEvents.capacityPerCaller = 3
            let server = ChatAPIServer(configuration: configuration)
            try server.start()
            defer { server.stop() }
            let client = try await Self.client(server.port, device: "device-a")
            let id = try await client.sendNonStreaming("one").conversationId
            for index in 0..<5 { _ = try await client.setTags(["t\(index)"], conversationId: id) }
            let events = LiveCollector(client.events(since: "1", options: Self.fast))
            defer { events.cancel() }
            #expect(await events.wait { !$0.isEmpty })
            #expect(events.snapshot.first?.kind == .reset)
            _ = try await client.setTags(["after"], conversationId: id)
            #expect(await events.wait { Self.tags($0).contains("after") })
            #expect(events.snapshot.filter { $0.kind == .reset }.count == 1)
        }
    }

    static func tags(_ events: [LiveEvent]) -> [String] {
        events.flatMap { event -> [String] in
            if case .conversationUpdated(let conversation) = event.kind { return conversation.tags ?? [] }
            return []
        }
    }

    @Test func aServerWithoutTheRouteIsReportedOnce() async throws {
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            var configuration = Self.configuration()
            configuration.extensionsEnabled = false
            let server = ChatAPIServer(configuration: configuration)
            try server.start()
            defer { server.stop() }
            let client = try await Self.client(server.port, device: "device-a")
            var got: [LiveEvent] = []
            for try await event in client.events(options: Self.fast) { got.append(event) }
            #expect(got.map(\.kind) == [.notSupportedByServer])
        }
    }

    @Test func anUnknownAgentFailsClearly() async throws {
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let server = ChatAPIServer(configuration: Self.configuration())
            try server.start()
            defer { server.stop() }
            let client = ChatbaseClient(
                agentId: "nobody", baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                identityStore: InMemoryIdentityStore(deviceId: "d"))
            await #expect(throws: APIError.self) {
                for try await _ in client.events(options: Self.fast) {}
            }
        }
    }
}

extension LiveEvent.Kind {
    /// The wire type's name, for assertions.
    var name: String {
        switch self {
        case .conversationCreated: "conversation.created"
        case .conversationUpdated: "conversation.updated"
        case .messageCreated: "message.created"
        case .typing: "typing"
        case .reset: "reset"
        case .notSupportedByServer: "not-supported"
        case .other: "other"
        }
    }

    func isUpdate(of id: String) -> Bool {
        if case .conversationUpdated(let conversation) = self { return conversation.id == id }
        return false
    }
}

/// Polls a condition.
enum TestWait {
    static func until(timeout: Duration = .seconds(90), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
