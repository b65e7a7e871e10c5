// The idle timeout on the decoded event stream (EventIdleWatch), on a clock the test moves: a
// stream is a list of timed parts (an event block, a comment), each cut at every chunking and
// served only when the reader asks, the clock set to the part's time when its first piece is
// served. A reply that brings only comments times out when the idle timeout has passed since its
// last event, at the same place whatever the chunking, and is resumed; a reply whose events keep
// coming does not; a live stream of heartbeats (`: ping`, counted by the decoder) stays on one
// connection, while one of other comments is given up and reopened.

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

/// A clock the test sets, in whole seconds from an origin.
final class SteppedClock: Sendable {
    private let origin = ContinuousClock.now
    private let seconds = Mutex(0)
    var time: Int { seconds.withLock { $0 } }
    func set(_ value: Int) { seconds.withLock { $0 = value } }
    var now: @Sendable () -> ContinuousClock.Instant { { [self] in origin + .seconds(time) } }
}

/// A body served piece by piece on demand: part `i` (at second `times[i]`) is cut by `cut`, and
/// the clock moves to the part's time when its first piece is served.
final class TimedBody: Sendable {
    struct Part: Sendable {
        let time: Int
        let bytes: [UInt8]
    }
    private let pieces: [(time: Int, part: Int, bytes: [UInt8])]
    private let served = Mutex(0)
    let clock: SteppedClock

    init(_ parts: [Part], clock: SteppedClock, cut: ([UInt8]) -> [[UInt8]]) {
        var pieces: [(Int, Int, [UInt8])] = []
        for (index, part) in parts.enumerated() {
            for piece in cut(part.bytes) where !piece.isEmpty { pieces.append((part.time, index, piece)) }
        }
        self.pieces = pieces
        self.clock = clock
    }

    /// How many pieces were served.
    var servedCount: Int { served.withLock { $0 } }
    /// The part the last piece served belongs to, and how many of its pieces were served.
    var lastServed: (part: Int, pieces: Int)? {
        let count = servedCount
        guard count > 0 else { return nil }
        let part = pieces[count - 1].part
        return (part, pieces[..<count].filter { $0.part == part }.count)
    }

    var body: HTTPBody {
        HTTPBody(
            AsyncThrowingStream { [self] () -> [UInt8]? in
                let next: (time: Int, part: Int, bytes: [UInt8])? = served.withLock { count in
                    guard count < pieces.count else { return nil }
                    count += 1
                    return pieces[count - 1]
                }
                guard let next else { return nil }
                clock.set(next.time)
                return next.bytes
            })
    }
}

@Suite("The idle timeout watches decoded events", .blockingAllowed)
struct EventIdleTimeoutTests {
    static let reply = ScriptedReply()
    static let idle = Duration.seconds(5)

    /// The reply's event blocks (`id: n` ... blank line), in order.
    static var replyBlocks: [[UInt8]] {
        String(decoding: reply.bytes, as: UTF8.self).components(separatedBy: "\n\n").dropLast().map {
            Array(($0 + "\n\n").utf8)
        }
    }

    /// Every way each part is cut: whole, bytes, seeded random.
    static let cuts: [(name: String, cut: @Sendable ([UInt8]) -> [[UInt8]])] = [
        ("whole", { [$0] }),
        ("bytes", { $0.map { [$0] } }),
        ("random(1)", { Chunkings.random($0, seed: 1, empties: true) }),
        ("random(2)", { Chunkings.random($0, seed: 2, empties: false) }),
    ]

    static func client(_ transport: FakeTransport, attempts: Int) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            retryPolicy: .init(
                maxAttempts: attempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2),
                totalBudget: .seconds(5)),
            idleTimeout: idle, store: nil)
    }

    static let round = ChatbaseClient.Round.chat(
        message: "hi", conversationId: ScriptedReply.conversationId,
        clientMessageId: "5d1c8e0a-9b7f-4e21-8c3d-2a1b0c9d8e7f")

    /// Three events at seconds 0, 1, 2, then a comment a second from 3 to 14.
    static func stallingParts() -> [TimedBody.Part] {
        var parts = replyBlocks.prefix(3).enumerated().map { TimedBody.Part(time: $0.offset, bytes: $0.element) }
        for second in 3...14 { parts.append(TimedBody.Part(time: second, bytes: Array(": keep-alive\n\n".utf8))) }
        return parts
    }

    @Test(arguments: 0..<cuts.count)
    func aReplyOfCommentsAloneTimesOutAtTheSamePlaceAtEveryChunking(cutIndex: Int) async throws {
        let clock = SteppedClock()
        let timed = TimedBody(Self.stallingParts(), clock: clock, cut: Self.cuts[cutIndex].cut)
        let transport = FakeTransport { _ in Wire.error(500, "UNEXPECTED") }
        let runner = ReplyRunner(client: Self.client(transport, attempts: 1), now: clock.now)
        var text = ""
        do {
            _ = try await runner.readReply(Self.round, from: timed.body, .init(), index: 0) { update in
                if case .textDelta(_, let delta) = update.event { text += delta }
            }
            Issue.record("the reply did not time out (\(Self.cuts[cutIndex].name))")
        } catch {
            guard case .networkError(let inner)? = error as? APIError, let stream = inner as? ReplyStreamError else {
                Issue.record("got \(error)")
                return
            }
            #expect(stream.transportError?.kind == .timedOut, "\(Self.cuts[cutIndex].name): \(error)")
            #expect(stream.transportError?.message.contains("comments do not count") == true)
            #expect(stream.partialMessage.text == text)
        }
        // The last event came at 2 s: the first read at or after 7 s gives up, after one piece of
        // the comment served at 7 s, however the parts were cut.
        #expect(text == "The qui")
        #expect(timed.lastServed?.part == 7, "\(Self.cuts[cutIndex].name)")
        #expect(timed.lastServed?.pieces == 1, "\(Self.cuts[cutIndex].name)")
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: 0..<cuts.count)
    func aTimedOutReplyIsResumedAndHandedOverOnce(cutIndex: Int) async throws {
        let clock = SteppedClock()
        let timed = TimedBody(Self.stallingParts(), clock: clock, cut: Self.cuts[cutIndex].cut)
        let reply = Self.reply
        let transport = FakeTransport { request in
            #expect(request.route == ReplyResumeTests.resumeRoute)
            return reply.response(upTo: nil)
        }
        let runner = ReplyRunner(client: Self.client(transport, attempts: 3), now: clock.now)
        var text = ""
        let message = try await runner.readReply(Self.round, from: timed.body, .init(), index: 0) { update in
            if case .textDelta(_, let delta) = update.event { text += delta }
        }
        #expect(text == reply.text, "\(Self.cuts[cutIndex].name)")
        #expect(message.text == reply.text)
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: 0..<cuts.count)
    func aReplyWhoseEventsKeepComingDoesNotTimeOut(cutIndex: Int) async throws {
        // One event every 4 s (under the idle timeout), 80 s in all; comments between them.
        var parts: [TimedBody.Part] = []
        for (index, block) in Self.replyBlocks.enumerated() {
            parts.append(TimedBody.Part(time: index * 4, bytes: block))
            parts.append(TimedBody.Part(time: index * 4 + 2, bytes: Array(": still here\n\n".utf8)))
        }
        let clock = SteppedClock()
        let timed = TimedBody(parts, clock: clock, cut: Self.cuts[cutIndex].cut)
        let transport = FakeTransport { _ in Wire.error(500, "UNEXPECTED") }
        let runner = ReplyRunner(client: Self.client(transport, attempts: 1), now: clock.now)
        let message = try await runner.readReply(Self.round, from: timed.body, .init(), index: 0) { _ in }
        #expect(message.text == Self.reply.text)
        #expect(clock.time > 50, "the reply outlasted the idle timeout many times")
        #expect(transport.requests.isEmpty)
    }

    // MARK: - Live events

    static let typing = #"{"conversationId":"c1","participant":"agent","active":true}"#

    /// `subscribed` at 0, `comment` every second from 1 to 40, then one event at 41.
    static func liveParts(comment: String) -> [TimedBody.Part] {
        var parts = [TimedBody.Part(time: 0, bytes: Array("id: 1\nevent: subscribed\ndata: {}\n\n".utf8))]
        for second in 1...40 { parts.append(TimedBody.Part(time: second, bytes: Array(comment.utf8))) }
        parts.append(TimedBody.Part(time: 41, bytes: Array("id: 2\nevent: typing\ndata: \(typing)\n\n".utf8)))
        return parts
    }

    /// Reads a subscription until its first event; the connections it made.
    static func firstEvent(comment: String, cut: @escaping @Sendable ([UInt8]) -> [[UInt8]]) async throws -> (
        event: LiveEvent?, connections: Int, lastEventIds: [String?]
    ) {
        let clock = SteppedClock()
        let lastEventIds = Mutex<[String?]>([])
        let transport = FakeTransport { request in
            let count = lastEventIds.withLock {
                $0.append(request.headers["Last-Event-ID"])
                return $0.count
            }
            // A second connection: the event at once.
            let parts =
                count == 1
                ? Self.liveParts(comment: comment)
                : [
                    TimedBody.Part(
                        time: clock.time, bytes: Array("id: 2\nevent: typing\ndata: \(Self.typing)\n\n".utf8))
                ]
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                body: TimedBody(parts, clock: clock, cut: cut).body)
        }
        let client = Self.client(transport, attempts: 1)
        let options = LiveEventOptions(defaultRetry: .milliseconds(1), jitter: 0, idleTimeout: Self.idle)
        let subscription = LiveEventSubscription(client: client, since: nil, options: options, box: LiveStateBox())
        subscription.now = clock.now
        var event: LiveEvent?
        while let update = try await subscription.nextUpdate() {
            if case .event(let first) = update {
                event = first
                break
            }
        }
        return (event, lastEventIds.withLock { $0.count }, lastEventIds.withLock { $0 })
    }

    @Test(arguments: 0..<cuts.count)
    func aLiveStreamOfHeartbeatsAloneStaysOnItsConnection(cutIndex: Int) async throws {
        for heartbeat in [": ping\n\n", ":ping\n", ": ping\r\n\r\n"] {
            let (event, connections, _) = try await Self.firstEvent(comment: heartbeat, cut: Self.cuts[cutIndex].cut)
            #expect(event?.id == "2")
            #expect(connections == 1, "\(Self.cuts[cutIndex].name), \(heartbeat.debugDescription)")
        }
    }

    @Test(arguments: 0..<cuts.count)
    func aLiveStreamOfOtherCommentsIsReopenedFromItsPosition(cutIndex: Int) async throws {
        for comment in [": keep-alive\n\n", ": pingpong\n", ":  ping\n"] {
            let (event, connections, ids) = try await Self.firstEvent(comment: comment, cut: Self.cuts[cutIndex].cut)
            #expect(event?.id == "2")
            #expect(connections == 2, "\(Self.cuts[cutIndex].name), \(comment.debugDescription)")
            #expect(ids == [nil, "1"])
        }
    }
}
