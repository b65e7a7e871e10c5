// ConversationListState and ConversationState following the live stream (issue 21, deliverable 4):
// new conversations appear, updates reorder, a human agent's message shows in the open
// conversation once, typing and an ending status show, a reset refetches, and nothing is listed
// or shown twice when a live event and a fetched page (or the send itself) carry the same item.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@MainActor
@Suite("UI states follow the live stream", .blockingAllowed)
struct LiveUIStateTests {
    static func start() throws -> ChatAPIServer {
        let server = ChatAPIServer(configuration: LiveEventsEndToEndTests.configuration())
        try server.start()
        return server
    }

    /// `ids` with each run of one ID kept once, in order (an ID seen again later is kept again).
    static func distinctInOrder(_ ids: [String]) -> [String] {
        ids.reduce(into: []) { result, id in if result.last != id { result.append(id) } }
    }

    static func until(_ condition: @MainActor () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func theListAddsReordersAndNeverListsTwice() async throws {
        let server = try Self.start()
        defer { server.stop() }
        let client = ChatbaseClient(
            agentId: LiveEventsEndToEndTests.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            identityStore: InMemoryIdentityStore(deviceId: "device-list"), store: nil)
        let older = try await client.sendNonStreaming("the older one").conversationId
        let newer = try await client.sendNonStreaming("the newer one").conversationId
        let list = ConversationListState(client: client)
        await list.load()
        #expect(list.conversations.map(\.id) == [newer, older])
        list.startLive(options: LiveEventsEndToEndTests.fast)
        defer { list.stopLive() }
        #expect(await Self.until { server.liveSubscriberCount == 1 })
        // A human agent writes in the older conversation: it moves to the top.
        #expect(server.addAgentMessage(conversationId: older, text: "a human agent here") != nil)
        #expect(await Self.until { list.conversations.first?.id == older })
        #expect(list.conversations.first?.lastMessage?.text == "a human agent here")
        // A conversation started elsewhere (another client of the same device) appears, once.
        let other = ChatbaseClient(
            agentId: LiveEventsEndToEndTests.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            identityStore: InMemoryIdentityStore(deviceId: "device-list"), store: nil)
        let third = try await other.sendNonStreaming("from another tab").conversationId
        #expect(await Self.until { list.conversations.first?.id == third })
        // Ended from the dashboard: the status shows without a refetch.
        #expect(server.endConversation(id: newer))
        #expect(await Self.until { list.conversations.first { $0.id == newer }?.status == .ended })
        // Typing shows, then stops.
        server.setTyping(conversationId: third, active: true)
        #expect(await Self.until { list.typingConversationIds == [third] })
        server.setTyping(conversationId: third, active: false)
        #expect(await Self.until { list.typingConversationIds.isEmpty })
        // A fetch while live lists each conversation once.
        await list.load()
        let ids = list.conversations.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids) == [older, newer, third])
        // A reset reloads the first page.
        await list.handleLive(LiveEvent(id: nil, kind: .reset))
        #expect(Set(list.conversations.map(\.id)) == [older, newer, third])
    }

    @Test func theOpenConversationShowsMessagesTypingAndItsEnd() async throws {
        let server = try Self.start()
        defer { server.stop() }
        let client = ChatbaseClient(
            agentId: LiveEventsEndToEndTests.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            identityStore: InMemoryIdentityStore(deviceId: "device-open"), store: nil)
        let id = try await client.sendNonStreaming("hello").conversationId
        let state = ConversationState(client: client)
        await state.loadHistory(conversationId: id)
        let before = state.messages.count
        state.startLive(options: LiveEventsEndToEndTests.fast)
        defer { state.stopLive() }
        #expect(await Self.until { server.liveSubscriberCount == 1 })
        // A reply sent from this state streams in; the live copies of both messages are not shown again.
        await state.sendMessage("and one more thing")
        try await Task.sleep(for: .milliseconds(300))
        let afterSend = state.messages.count
        #expect(afterSend > before)
        // A human agent's message appears once.
        server.setTyping(conversationId: id, active: true)
        #expect(await Self.until { state.typingParticipants.contains(.humanAgent) })
        let humanId = try #require(server.addAgentMessage(conversationId: id, text: "a person joins"))
        #expect(await Self.until { state.messages.contains { $0.messageId == humanId } })
        #expect(state.messages.filter { $0.messageId == humanId }.count == 1)
        #expect(state.messages.count == afterSend + 1)
        // Every server message is shown exactly once: the rows' IDs match the history's.
        let history = try await client.listMessages(conversationId: id, limit: 100).data.map(\.id)
        #expect(Self.distinctInOrder(state.messages.compactMap(\.messageId)) == history)
        // (A message of several parts is several rows with one ID; no ID comes back after another.)
        #expect(Self.distinctInOrder(state.messages.compactMap(\.messageId)).count == Set(history).count)
        // Ended elsewhere: the composer says so.
        #expect(state.canSend)
        #expect(server.endConversation(id: id))
        #expect(await Self.until { state.status == .ended })
        #expect(!state.canSend)
        // A reset refetches the history (a row only this state had is gone).
        state.messages.append(.init(id: "local-only", kind: .text("stale"), sender: .agent))
        await state.handleLive(LiveEvent(id: nil, kind: .reset))
        #expect(!state.messages.contains { $0.id == "local-only" })
        #expect(state.messages.compactMap(\.messageId).last == humanId)
    }

    @Test func liveEventsUpdateTheLocalStore() async throws {
        let server = try Self.start()
        defer { server.stop() }
        let client = ChatbaseClient(
            agentId: LiveEventsEndToEndTests.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            identityStore: InMemoryIdentityStore(deviceId: "device-cache"), store: .inMemory())
        let id = try await client.sendNonStreaming("cache me").conversationId
        let collector = LiveCollector(client.events(options: LiveEventsEndToEndTests.fast))
        defer { collector.cancel() }
        #expect(await Self.until { server.liveSubscriberCount == 1 })
        let humanId = try #require(server.addAgentMessage(conversationId: id, text: "cached live"))
        #expect(await Self.until { collector.snapshot.contains { $0.kind.messageId == humanId } })
        let cached = try await client.listMessages(conversationId: id, limit: 100, source: .local)
        #expect(cached.data.contains { $0.id == humanId })
    }
}

extension LiveEvent.Kind {
    /// The message a `message.created` carries.
    fileprivate var messageId: String? {
        if case .messageCreated(_, let message) = self { return message.id }
        return nil
    }
}
