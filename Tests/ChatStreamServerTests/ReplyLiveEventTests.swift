// A streamed reply on the owner's live event stream (PROTOCOLS.md sections 6 and 8): announced
// once, whole, when it is stored, with the agent typing while it generates, reader or not.

import ChatStream
import TestSupport
import Testing

@Suite("Resumable replies on the live event stream", .blockingAllowed)
struct ReplyLiveEventTests {
    @Test func aStreamedReplyIsAnnouncedOnceWithItsWholeText() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(5) }
        let (connection, _) = try LiveSubscribedTests.subscribe(fixture, until: LiveSubscribedTests.hasSubscribed)
        let cut = try fixture.chat("announce me once", headers: [("X-ChatStream-Fault", "drop-after=120")])
        let messageId = try #require(cut.header("X-Message-Id"))
        let bytes = LiveEventRouteTests.read(connection.fd, for: .seconds(10)) {
            LiveEventRouteTests.occurrences(of: #""active":false"#, in: $0) >= 1
                && LiveEventRouteTests.occurrences(of: messageId, in: $0) >= 1
        }
        let events = LiveSubscribedTests.events(bytes)
        let created = events.filter { $0.type == "message.created" && $0.data?.contains(messageId) == true }
        #expect(created.count == 1)
        let message = try #require(created.first?.data.flatMap { try? JSONTree(parsing: Array($0.utf8)) })
        #expect(
            message["message"]?["parts"]?[0]?["text"]?.stringValue?.hasPrefix("You said: announce me once.") == true)
        // The agent typed while generating, although its reader had gone.
        let typing = events.filter { $0.type == "typing" }.compactMap(\.data)
        #expect(typing.first?.contains(#""active":true"#) == true)
        #expect(typing.last?.contains(#""active":false"#) == true)
    }
}
