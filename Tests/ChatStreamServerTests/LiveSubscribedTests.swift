// The live event route's `subscribed` event (issue 28, wire decision in the Delivery article): a
// new subscriber learns where "now" is before any change, so a reconnect from that ID misses nothing.

import ChatStream
import ChatStreamServer
import Foundation
import Glibc
import TestSupport
import Testing

@Suite("Live events: subscribed", .blockingAllowed)
struct LiveSubscribedTests {
    /// One SSE event as sent: its `id:`, `event:` and `data:` fields.
    struct Event: Equatable {
        var id: String?
        var type: String?
        var data: String?
    }

    /// The events in `bytes` (an HTTP response with a chunked body is fine: chunk-size lines never
    /// start with a field name), comments and `retry:` left out.
    static func events(_ bytes: [UInt8]) -> [Event] {
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        return text.components(separatedBy: "\n\n").compactMap { block in
            var event = Event()
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event.type = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
            }
            return event.type == nil && event.data == nil ? nil : event
        }
    }

    /// Subscribes (resuming after `lastEventId` when given) and reads until `enough` holds or 5 s pass.
    static func subscribe(
        _ fixture: APIFixture, device: String = "device-a", lastEventId: String? = nil,
        until enough: @escaping ([Event]) -> Bool
    ) throws -> (RawHTTPConnection, [Event]) {
        let connection = try RawHTTPConnection(port: fixture.server.port, timeout: 1)
        var head = "GET \(fixture.api("events")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: \(device)\r\n"
        if let lastEventId { head += "Last-Event-ID: \(lastEventId)\r\n" }
        try connection.send(head + "\r\n")
        let bytes = LiveEventRouteTests.read(connection.fd, for: .seconds(5)) { enough(events($0)) }
        return (connection, events(bytes))
    }

    static func hasSubscribed(_ events: [Event]) -> Bool { events.contains { $0.type == "subscribed" } }

    /// The events up to and with `subscribed`: a live event (a reply's typing ending) may follow it
    /// in the same read, since a subscriber counts as listening from its opening.
    static func throughSubscribed(_ events: [Event]) -> [Event] {
        Array(events.prefix { $0.type != "subscribed" } + events.drop { $0.type != "subscribed" }.prefix(1))
    }

    @Test func aNewSubscriberIsToldItsPositionBeforeAnyChange() throws {
        let fixture = try APIFixture()
        _ = try fixture.startConversation("before the subscription")
        let (connection, opening) = try Self.subscribe(fixture, until: Self.hasSubscribed)
        // Nothing from before: `subscribed` first, whose ID is the newest event so far (the first
        // reply's `typing` end may follow it: the subscriber counts as listening from its opening).
        #expect(opening.first?.type == "subscribed")
        #expect(opening.dropFirst().allSatisfy { $0.type == "typing" }, "opening: \(opening.map(\.type))")
        #expect(opening.first?.data == "{}")
        let position = try #require(opening.first?.id.flatMap { Int($0) })
        #expect(position > 0)
        // A change after it comes with a greater ID.
        _ = try fixture.startConversation("after the subscription")
        let bytes = LiveEventRouteTests.read(connection.fd, for: .seconds(5)) {
            Self.events($0).contains { $0.type == "message.created" }
        }
        let later = Self.events(bytes)
        #expect(later.contains { $0.type == "conversation.created" })
        #expect(later.compactMap { $0.id.flatMap { Int($0) } }.allSatisfy { $0 > position })
    }

    @Test func aReconnectFromTheSubscribedIdMissesNothing() throws {
        let fixture = try APIFixture()
        let (first, opening) = try Self.subscribe(fixture, until: Self.hasSubscribed)
        let position = try #require(opening.first { $0.type == "subscribed" }?.id)
        shutdown(first.fd, Int32(SHUT_RDWR))
        // While nobody is subscribed, a conversation is made.
        let id = try fixture.startConversation("made while disconnected")
        let (_, read) = try Self.subscribe(fixture, lastEventId: position, until: Self.hasSubscribed)
        let resumed = Self.throughSubscribed(read)
        let types = resumed.map(\.type)
        // The missed events first, then `subscribed` with the newest ID.
        #expect(types.first == "conversation.created")
        #expect(types.last == "subscribed")
        #expect(types.contains("message.created"))
        #expect(resumed.contains { $0.data?.contains(id) == true })
        let ids = resumed.compactMap { $0.id.flatMap { Int($0) } }
        #expect(ids.count == resumed.count)
        #expect(ids.dropLast() == ids.dropLast().sorted())
        #expect(ids.last! >= ids.dropLast().max()!)
        #expect(ids.first! > Int(position)!)
    }

    @Test func aResumeWithNothingNewRepeatsThePosition() throws {
        let fixture = try APIFixture()
        _ = try fixture.startConversation("something")
        let (_, opening) = try Self.subscribe(fixture, until: Self.hasSubscribed)
        let position = try #require(opening.first { $0.type == "subscribed" }?.id)
        let (_, read) = try Self.subscribe(fixture, lastEventId: position, until: Self.hasSubscribed)
        let resumed = Self.throughSubscribed(read)
        #expect(resumed == [Event(id: position, type: "subscribed", data: "{}")])
    }

    @Test(arguments: ["not-a-number", "999999999", "-4"])
    func aResumeTheLogCannotVouchForGetsResetThenSubscribed(lastEventId: String) throws {
        let fixture = try APIFixture()
        _ = try fixture.startConversation("something")
        let (_, read) = try Self.subscribe(fixture, lastEventId: lastEventId, until: Self.hasSubscribed)
        let resumed = Self.throughSubscribed(read)
        #expect(resumed.map(\.type) == ["reset", "subscribed"])
        #expect(resumed[0].id == resumed[1].id)
        #expect(Int(resumed[1].id ?? "") ?? 0 > 0)
    }
}
