// The live subscription's position and state against a scripted loopback server (issue 28,
// deliverable 3; issue 31, deliverable 5): `subscribed` gives the position a reconnection resumes
// from (an idle subscriber misses nothing; a resumed connection's replay comes before it and does
// not make it live), a server without `subscribed` is live at its first event, the states come in order, `retry: 0`
// and a server that closes at once cost a few requests, and absurd `Retry-After` values on the
// events route neither trap nor stall.

import ChatStream
import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient
@testable import ChatStreamServer

@Suite("Live subscriptions: position, state, backoff", .blockingAllowed)
struct LiveSubscriptionTests {
    /// Each connection's `Last-Event-ID` (nil: none), in order.
    final class Connections: Sendable {
        let lastEventIds = Mutex<[String?]>([])
        /// When each connection's request arrived.
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        var count: Int { lastEventIds.withLock { $0.count } }
        func note(_ request: HTTPServerRequest) -> Int {
            arrivals.withLock { $0.append(.now) }
            return lastEventIds.withLock {
                $0.append(request.headers["Last-Event-ID"])
                return $0.count
            }
        }
    }

    static let typing = #"{"conversationId":"c1","participant":"agent","active":true}"#

    static func client(_ server: HTTPServer) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent-live", baseURL: HTTPTestServer.url(server, ""),
            identityStore: InMemoryIdentityStore(deviceId: "device-live"), store: nil)
    }

    /// A subscription's updates as text (`state:live`, `event:42`), collected from a task.
    final class Updates: Sendable {
        let items = Mutex<[String]>([])
        let task = Mutex<Task<Void, Never>?>(nil)

        init(_ sequence: AsyncLiveEventSequence) {
            let started = Task(executorPreference: NetworkTestExecutor.shared) { [self] in
                let subscription = sequence.makeAsyncIterator().state
                while let update = try? await subscription.nextUpdate() {
                    let text =
                        switch update {
                        case .state(let state): "state:\(state)"
                        case .event(let event): "event:\(event.id ?? "-")"
                        }
                    items.withLock { $0.append(text) }
                }
            }
            task.withLock { $0 = started }
        }

        var snapshot: [String] { items.withLock { $0 } }
        func cancel() { task.withLock { $0?.cancel() } }
    }

    static func stream(_ response: HTTPServerResponseWriter, _ text: String) throws {
        try response.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
        try response.write(text)
        try response.finishStream()
    }

    static let quick = LiveEventOptions(
        defaultRetry: .milliseconds(10), maxDelay: .milliseconds(200), jitter: 0, minimumBackoff: .milliseconds(20))

    @Test func eachConnectionResumesFromTheSubscribedPosition() async throws {
        let connections = Connections()
        try await HTTPTestServer.with(handler: { request, response in
            switch connections.note(request) {
            case 1:
                // Idle: the server says where the subscription begins, then goes away.
                try Self.stream(response, "retry: 10\nid: 41\nevent: subscribed\ndata: {}\n\n")
            case 2:
                // Resumed after 41: the replay first, then the position now (50: another identity's
                // events took 43...49).
                try Self.stream(
                    response, "id: 42\nevent: typing\ndata: \(Self.typing)\n\nid: 50\nevent: subscribed\ndata: {}\n\n")
            default:
                try Self.stream(response, "id: 60\nevent: subscribed\ndata: {}\n\n")
            }
        }) { server in
            let sequence = Self.client(server).events(options: Self.quick)
            let updates = Updates(sequence)
            defer { updates.cancel() }
            #expect(await TestWait.until { connections.count >= 3 })
            let ids = connections.lastEventIds.withLock { Array($0.prefix(3)) }
            #expect(ids == [nil, "41", "50"])
            #expect(await TestWait.until { updates.snapshot.count >= 6 })
            #expect(
                Array(updates.snapshot.prefix(6)) == [
                    "state:connecting", "state:live", "state:reconnecting(after: 0.01 seconds)", "state:connecting",
                    "event:42", "state:live",
                ])
            #expect(updates.snapshot.filter { $0.hasPrefix("event:") } == ["event:42"])
        }
    }

    @Test func aServerWithoutSubscribedIsLiveAtItsFirstEvent() async throws {
        let connections = Connections()
        try await HTTPTestServer.with(handler: { request, response in
            if connections.note(request) == 1 {
                try Self.stream(response, "retry: 10\n: ping\n\n")
            } else {
                try Self.stream(response, ": ping\n\nid: 7\nevent: typing\ndata: \(Self.typing)\n\n")
            }
        }) { server in
            let sequence = Self.client(server).events(options: Self.quick)
            let updates = Updates(sequence)
            defer { updates.cancel() }
            #expect(await TestWait.until { updates.snapshot.contains("event:7") })
            #expect(
                Array(updates.snapshot.prefix(5)) == [
                    "state:connecting", "state:reconnecting(after: 0.01 seconds)", "state:connecting", "state:live",
                    "event:7",
                ])
            // Without `subscribed` there was no position before the first event.
            #expect(connections.lastEventIds.withLock { Array($0.prefix(2)) } == [nil, nil])
            #expect(sequence.state != .stopped)
        }
    }

    /// Connections made in `window` against a server that answers every connection with `text` and closes.
    /// The gaps between the first four connections of a subscription whose every stream is `text`
    /// and then ends (waiting at most a minute for them).
    static func reconnectionGaps(answering text: String) async throws -> [Duration] {
        let connections = Connections()
        return try await HTTPTestServer.with(handler: { request, response in
            _ = connections.note(request)
            try Self.stream(response, text)
        }) { server in
            let updates = Updates(Self.client(server).events())
            defer { updates.cancel() }
            #expect(await TestWait.until(timeout: .seconds(60)) { connections.count >= 4 })
            let arrivals = connections.arrivals.withLock { Array($0.prefix(4)) }
            return zip(arrivals.dropFirst(), arrivals).map { $0 - $1 }
        }
    }

    @Test func retryZeroMeansAtOnceThenBacksOff() async throws {
        // Default options (500 ms minimum backoff, doubling, 30% jitter): the first reconnection
        // at once (about a millisecond alone; seconds when blocking tests hold the cooperative
        // pool, so it is not bounded here), then at least 0.35 s, then at least 0.7 s: only lower
        // bounds on the backoff, and a loose upper one on the third gap.
        for text in ["retry: 0\nid: 1\nevent: subscribed\ndata: {}\n\n", "retry: 0\n\n"] {
            let gaps = try await Self.reconnectionGaps(answering: text)
            try #require(gaps.count == 3, "\(gaps)")
            #expect(gaps[1] >= .milliseconds(350), "\(gaps)")
            #expect(gaps[2] >= .milliseconds(700), "\(gaps)")
            #expect(gaps[2] < .seconds(10), "the backoff doubles from 0.5 s, it does not stall: \(gaps)")
        }
    }

    @Test(arguments: ["inf", "1e300", "10000000000000000", "-1", "NaN", "99999999999999999999999999"])
    func anAbsurdRetryAfterOnTheEventsRouteNeitherTrapsNorStalls(_ value: String) async throws {
        let connections = Connections()
        try await HTTPTestServer.with(handler: { request, response in
            if connections.note(request) == 1 {
                try response.respond(
                    status: 503, headers: [("Retry-After", value), ("Content-Type", "application/json")],
                    body: Array(#"{"error":{"code":"UNAVAILABLE","message":"busy"}}"#.utf8))
            } else {
                try Self.stream(
                    response, "id: 3\nevent: subscribed\ndata: {}\n\nid: 4\nevent: typing\ndata: \(Self.typing)\n\n")
            }
        }) { server in
            let sequence = Self.client(server).events(options: Self.quick)
            let updates = Updates(sequence)
            defer { updates.cancel() }
            // A day-long Retry-After is capped by maxDelay (200 ms here): the second attempt comes soon.
            #expect(await TestWait.until(timeout: .seconds(60)) { updates.snapshot.contains("event:4") }, "\(value)")
        }
    }
}
