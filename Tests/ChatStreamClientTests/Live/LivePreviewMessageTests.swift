// A long message travels in its live event as a preview only (issue 31: events carry no message
// bodies); the open conversation must still show it whole, by fetching the history.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@MainActor
@Suite("Live messages sent as previews", .blockingAllowed)
struct LivePreviewMessageTests {
    @Test func theOpenConversationFetchesAMessageTheEventOnlyPreviews() async throws {
        var configuration = LiveEventsEndToEndTests.configuration()
        configuration.liveEvents.inlineMessageBytes = 512
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let client = ChatbaseClient(
            agentId: LiveEventsEndToEndTests.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            identityStore: InMemoryIdentityStore(deviceId: "device-preview"), store: nil)
        let id = try await client.sendNonStreaming("hello").conversationId
        let state = ConversationState(client: client)
        await state.loadHistory(conversationId: id)
        let collector = LiveCollector(client.events(options: LiveEventsEndToEndTests.fast))
        defer { collector.cancel() }
        state.startLive(options: LiveEventsEndToEndTests.fast)
        defer { state.stopLive() }
        #expect(await LiveUIStateTests.until { server.liveSubscriberCount == 2 })
        let long = String(repeating: "a long answer. ", count: 200)
        let longId = try #require(server.addAgentMessage(conversationId: id, text: long))
        // The event carries the start only, marked as such.
        #expect(await LiveUIStateTests.until { collector.snapshot.contains { $0.carriesPreviewOnly } })
        let event = try #require(collector.snapshot.first { $0.carriesPreviewOnly })
        guard case .messageCreated(_, let preview) = event.kind else {
            Issue.record("not a message event: \(event.kind)")
            return
        }
        #expect(preview.id == longId)
        #expect(preview.text.count < long.count)
        // The open conversation shows the whole message, once.
        #expect(await LiveUIStateTests.until { state.messages.contains { $0.messageId == longId } })
        let rows = state.messages.filter { $0.messageId == longId }
        #expect(rows.count == 1)
        guard case .text(let shown)? = rows.first?.kind else {
            Issue.record("the message is not a text row")
            return
        }
        #expect(shown == long)
        // A short message still travels whole and is not marked.
        let shortId = try #require(server.addAgentMessage(conversationId: id, text: "short"))
        #expect(await LiveUIStateTests.until { collector.snapshot.contains { $0.kind.liveMessageId == shortId } })
        #expect(collector.snapshot.first { $0.kind.liveMessageId == shortId }?.carriesPreviewOnly == false)
    }
}

extension LiveEvent.Kind {
    /// The ID of the message a `message.created` carries.
    fileprivate var liveMessageId: String? {
        if case .messageCreated(_, let message) = self { return message.id }
        return nil
    }
}
