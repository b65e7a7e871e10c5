// A model agent's reply survives the connection as the demo agent's does (PROTOCOLS.md section
// 8): a resume after any event ID gets the same events from there, while the upstream still
// streams too; and while it streams, the text so far and the count of events sent are saved in
// the generating row, which is what a restart after a crash stores as the interrupted reply
// (ReplyStopAndRestartTests covers that restart for any generating row).

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite(.blockingAllowed) struct ModelAgentResumeTests {
    @Test func aFinishedModelReplyResumesAfterAnyEventWithTheSameEvents() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try ModelAgentRetryTests.fixture(provider)
        provider.enqueue(.recording("agents/streams/openai-chat-after-tools.sse"))
        let chat = try api.chat("weather?")
        #expect(chat.status == 200)
        let events = ReplyEvent.parse(chat.body)
        #expect(events.map(\.id) == events.indices.map { $0 + 1 })
        #expect(events.last?.type == "[DONE]")
        let messageId = try #require(chat.header("X-Message-Id"))
        let conversation = try #require(events.first?.json?["messageMetadata"]?["conversationId"]?.stringValue)
        for after in 0..<events.count {
            let resumed = try api.resume(conversation, messageId, after: "\(after)")
            #expect(resumed.status == 200)
            #expect(ReplyEvent.parse(resumed.body) == Array(events.dropFirst(after)), "after \(after)")
        }
        // Nothing was asked upstream again.
        #expect(provider.received.count == 1)
    }

    @Test func aModelReplyStillStreamingIsJoinedMidWayAndEndsForTheJoinerWhenStopped() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try ModelAgentRetryTests.fixture(provider)
        provider.enqueue(try MockProvider.Answer.firstHalfHeldOpen())
        let chat = api.background("POST", api.api("chat"), body: APIFixture.chatBody("Go on"))
        #expect(eventually(within: 150) { api.server.generatingReplyCount == 1 })
        let run = try #require(api.server.handlers.replies.generating.first)
        #expect(
            eventually(within: 150) {
                ReplyEvent.text(ReplyEvent.parse(run.events(after: 0).events.flatMap { $0 }))
                    == "The first half of an answer"
            })
        let held = ReplyEvent.parse(run.events(after: 0).events.flatMap { $0 })
        // A second reader resumes after event 2 and reads the rest of the text as it is held.
        let connection = try RawHTTPConnection(port: api.server.port)
        try connection.send(
            "GET \(api.replyPath(run.metadata.conversationId, run.messageId)) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "X-Device-Id: device-a\r\nLast-Event-ID: 2\r\n\r\n")
        func events(_ bytes: [UInt8]) -> [ReplyEvent] {
            guard let split = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
            return ReplyEvent.parse(APIFixture.dechunk(Array(bytes[split.upperBound...])).0)
        }
        let before = LiveEventRouteTests.read(connection.fd, for: .seconds(150)) {
            events($0).count == held.count - 2
        }
        #expect(events(before) == Array(held.dropFirst(2)))
        // Stopped while it reads: its stream ends with the stop's abort, finish and [DONE].
        let stop = try api.request(
            "POST", api.api("conversations/\(run.metadata.conversationId)/messages/\(run.messageId)/stop"))
        #expect(stop.status == 200, "\(stop.text)")
        let all =
            before
            + LiveEventRouteTests.read(connection.fd, for: .seconds(150)) {
                events(before + $0).last?.type == "[DONE]"
            }
        let resumed = events(all)
        #expect(Array(resumed.prefix(held.count - 2)) == Array(held.dropFirst(2)))
        #expect(resumed.dropFirst(held.count - 2).map(\.type) == ["abort", "finish", "[DONE]"])
        #expect(resumed.map(\.id) == (3...held.count + 3).map { Optional($0) })
        #expect(ModelAgentLimitsTests.upstreamClosedByServer(provider))
        _ = try? chat.wait()
    }

    @Test func theTextSoFarIsSavedWhileTheUpstreamStillStreams() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        agents[0].upstream.baseURL = provider.baseURL
        let api = try APIFixture(agent: "openai-agent") { configuration in
            configuration.agents = agents
            configuration.environment = { _ in nil }
            configuration.replies.checkpointInterval = .zero
        }
        provider.enqueue(try MockProvider.Answer.firstHalfHeldOpen())
        let chat = api.background("POST", api.api("chat"), body: APIFixture.chatBody("Go on"))
        #expect(eventually(within: 150) { api.server.generatingReplyCount == 1 })
        let run = try #require(api.server.handlers.replies.generating.first)
        // What a restart after a crash would find for it: the text so far, and the events it covers.
        func checkpoint() throws -> (parts: [JSONTree], events: Int)? {
            try api.server.handlers.store.read { try $0.generatingReplies() }
                .first { $0.sequence == run.sequence }.map { ($0.parts, $0.events) }
        }
        let expected = [AssembledPart.text("The first half of an answer").jsonValue]
        let saved = try eventually(within: 150) { try checkpoint()?.parts == expected }
        let found = try checkpoint()
        #expect(saved, "\(String(describing: found))")
        // Every event the run holds is covered: nothing more comes while the upstream is quiet.
        #expect(found?.events == run.events(after: 0).count)
        #expect(run.events(after: 0).count > 2)
        let stop = try api.request(
            "POST", api.api("conversations/\(run.metadata.conversationId)/messages/\(run.messageId)/stop"))
        #expect(stop.status == 200, "\(stop.text)")
        #expect(ModelAgentLimitsTests.upstreamClosedByServer(provider))
        _ = try? chat.wait()
    }
}
