// GET /agents/{agentId}/events under load and neglect (issue 21, "Bad input and load"): the
// heartbeat, a subscriber that stops reading (disconnected after the write timeout; events are
// pulled from the log, never queued per subscriber), and 256 subscribers that each get every event.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("The live event route under load", .blockingAllowed)
struct LiveEventRouteTests {
    /// Opens `GET .../events` for `device` and returns the connection (its response is left unread).
    static func subscribe(_ fixture: APIFixture, device: String, receiveBuffer: Int32? = nil) throws
        -> RawHTTPConnection
    {
        let connection = try RawHTTPConnection(port: fixture.server.port, timeout: 1)
        if var size = receiveBuffer {
            setsockopt(connection.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        try connection.send(
            "GET \(fixture.api("events")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: \(device)\r\n\r\n")
        return connection
    }

    /// How the connections' streams began, counted by their first line (for a failure's message:
    /// which of them got no answer, or another status than 200). Reads each for at most 200 ms.
    static func openings(_ fds: [Int32]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for fd in fds {
            let bytes = read(fd, for: .milliseconds(200)) { $0.contains(UInt8(ascii: "\n")) }
            let line = String(
                decoding: bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            counts[line.isEmpty ? "(nothing)" : line, default: 0] += 1
        }
        return counts
    }

    /// Whatever arrives on `fd` within `duration` (or until `enough` holds).
    static func read(_ fd: Int32, for duration: Duration, until enough: ([UInt8]) -> Bool = { _ in false })
        -> [UInt8]
    {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline && !enough(received) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        return received
    }

    static func occurrences(of needle: String, in bytes: [UInt8]) -> Int {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: needle).count - 1
    }

    @Test func aQuietStreamSendsItsHeartbeat() throws {
        let fixture = try APIFixture { $0.liveEvents.heartbeat = .milliseconds(200) }
        let connection = try Self.subscribe(fixture, device: "quiet")
        let bytes = Self.read(connection.fd, for: .seconds(10)) { Self.occurrences(of: ": ping\n\n", in: $0) >= 3 }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text.contains("retry: 1000\n\n"))
        #expect(Self.occurrences(of: ": ping\n\n", in: bytes) >= 3)
    }

    @Test func aSubscriberThatStopsReadingIsDisconnected() throws {
        let fixture = try APIFixture { configuration in
            configuration.liveEvents.writeTimeout = .milliseconds(300)
            configuration.http.sendBufferBytes = 16 << 10
        }
        let id = try fixture.startConversation("a conversation whose tags will grow")
        let stalled = try Self.subscribe(fixture, device: "device-a", receiveBuffer: 4096)
        let deadline = ContinuousClock.now + .seconds(120)
        while fixture.server.liveSubscriberCount == 0 && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(fixture.server.liveSubscriberCount == 1)
        // Each change is a conversation.updated of about 2 KB (25 tags of 60 characters, the most
        // allowed); the subscriber reads none of them.
        let tags = (0..<25).map { "\"tag-\($0)-" + String(repeating: "x", count: 52) + "\"" }
        var changes = 0
        while fixture.server.liveSubscriberCount > 0 && ContinuousClock.now < deadline {
            let body = "{\"tags\":[\(tags.shuffled().joined(separator: ","))]}"
            let answer = try fixture.request("PUT", fixture.api("conversations/\(id)/tags"), body: body)
            guard answer.status == 200 else {
                Issue.record("PUT tags answered \(answer.status): \(answer.text)")
                break
            }
            changes += 1
            if changes > 400 { usleep(20_000) }
        }
        #expect(fixture.server.liveSubscriberCount == 0, "still subscribed after \(changes) changes")
        // Other callers were served all along, and the stalled connection is closed.
        #expect(try fixture.page(fixture.api("conversations")).status == 200)
        _ = Self.read(stalled.fd, for: .seconds(5)) { _ in false }
        #expect(try stalled.isClosedByPeer())
    }

    @Test func twoHundredFiftySixSubscribersEachGetEveryEvent() throws {
        let fixture = try APIFixture { configuration in
            configuration.http.maxConnections = 600
            configuration.http.maxConnectionsPerAddress = 600
            configuration.http.maxConnectionsPerNetwork = 600
            configuration.http.maxStreamsPerAddress = 600
        }
        let count = 256
        let subscribers = try (0..<count).map { _ in try Self.subscribe(fixture, device: "fan-device") }
        let deadline = ContinuousClock.now + .seconds(60)
        while fixture.server.liveSubscriberCount < count && ContinuousClock.now < deadline { usleep(10_000) }
        let counted = fixture.server.liveSubscriberCount
        if counted != count {
            // How each stream began tells whether the missing one got no answer or another status.
            Issue.record("\(counted) of \(count) subscribed; openings: \(Self.openings(subscribers.map(\.fd)))")
        }
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<10 { _ = try fixture.startConversation("fan-out \(index)", device: "fan-device") }
        let changesDone = clock.now
        // Read every subscriber (one thread, poll) until each has the ten conversations' events.
        var received = [[UInt8]](repeating: [], count: count)
        var finishedAt = [Duration?](repeating: nil, count: count)
        var chunk = [UInt8](repeating: 0, count: 65536)
        func complete(_ bytes: [UInt8]) -> Bool { Self.occurrences(of: "event: conversation.created", in: bytes) >= 10 }
        while finishedAt.contains(where: { $0 == nil }) && clock.now < deadline {
            var descriptors = subscribers.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), 100) > 0 else { continue }
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let read = recv(descriptors[index].fd, &chunk, chunk.count, 0)
                guard read > 0 else { continue }
                received[index] += chunk[0..<read]
                if finishedAt[index] == nil && complete(received[index]) { finishedAt[index] = clock.now - started }
            }
        }
        #expect(finishedAt.allSatisfy { $0 != nil }, "\(finishedAt.filter { $0 == nil }.count) subscribers incomplete")
        // Every subscriber saw the same IDs in the same order.
        func ids(_ bytes: [UInt8]) -> [Substring] {
            String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).filter { $0.hasPrefix("id: ") }
        }
        // Reading stops once each has the ten conversations, so the last few events (typing ended)
        // may be missing at some: compare what all of them have.
        let all = received.map(ids)
        let common = all.map(\.count).min() ?? 0
        #expect(common >= 30, "\(String(decoding: received[0].prefix(600), as: UTF8.self))")
        #expect(all.allSatisfy { $0.prefix(common) == all[0].prefix(common) })
        let times = finishedAt.compactMap { $0 }.sorted()
        if !times.isEmpty {
            print(
                "256 subscribers: 10 chats took \(changesDone - started); every subscriber had all "
                    + "\(common) events after: median \(times[times.count / 2]), last \(times.last!)")
        }
    }
}
