// A streamed reply on the owner's live event stream (PROTOCOLS.md sections 6 and 8): announced
// once, whole, when it is stored, with the agent typing while it generates, reader or not.

import ChatStream
import Dispatch
import TestSupport
import Testing

@testable import ChatStreamServer

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

@Suite("A live subscriber is counted from its opening", .blockingAllowed)
struct LiveSubscriberCountTests {
    /// Typing is recorded only while someone listens: a subscriber told `subscribed` must count
    /// as listening at once, not only once the live stream writer's thread has taken its socket.
    @Test func aReplyRightAfterSubscribedIsTypedForTheSubscriber() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(1) }
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let liveStreams = fixture.server.handlers.liveStreams
        liveStreams.beforeAdopt.withLock {
            $0 = {
                entered.signal()
                gate.wait()
            }
        }
        defer {
            liveStreams.beforeAdopt.withLock { $0 = nil }
            gate.signal()
        }
        let (connection, _) = try LiveSubscribedTests.subscribe(fixture, until: LiveSubscribedTests.hasSubscribed)
        // Its handler holds the stream, told `subscribed`, not yet handed over.
        #expect(entered.wait(timeout: .now() + 20) == .success)
        #expect(fixture.server.liveSubscriberCount == 1)
        let reply = try fixture.chat("typed for a new subscriber")
        #expect(reply.status == 200)
        liveStreams.beforeAdopt.withLock { $0 = nil }
        gate.signal()
        let bytes = LiveEventRouteTests.read(connection.fd, for: .seconds(20)) {
            LiveEventRouteTests.occurrences(of: #""active":false"#, in: $0) >= 1
        }
        let typing = LiveSubscribedTests.events(bytes).filter { $0.type == "typing" }.compactMap(\.data)
        #expect(typing.count == 2, "typing events: \(typing)")
        #expect(typing.first?.contains(#""active":true"#) == true)
        #expect(typing.last?.contains(#""active":false"#) == true)
    }
}
