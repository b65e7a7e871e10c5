import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamLive

/// Decodes `pieces` with a fresh decoder; returns the events and the decoder (for its counts).
func decodeLive(
    _ pieces: [[UInt8]], format: ConversationEventFormat,
    configuration: ConversationEventDecoder.Configuration = .default
) throws -> (events: [ConversationEvent], decoder: ConversationEventDecoder) {
    var decoder = ConversationEventDecoder(format: format, configuration: configuration)
    var events: [ConversationEvent] = []
    for piece in pieces { events += try decoder.feed(piece) }
    events += try decoder.finish()
    return (events, decoder)
}

/// The live-event fixtures (home and Salesforce), each beside its expected `{"id","type",...}` lines.
@Suite(.blockingAllowed) struct ConversationEventDecoderTests {
    static let directory = ProjectPaths.fixtures + "/live-events"

    static func bytes(_ name: String) throws -> [UInt8] {
        try ProjectPaths.fixtureBytes("live-events/" + name)
    }

    static func expected(_ name: String) throws -> [JSONTree] {
        try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
            .split(separator: "\n").map { try JSONTree(parsing: String($0)) }
    }

    @Test(arguments: [
        ("home-all-types", ConversationEventFormat.home, 1),
        ("salesforce-all-types", ConversationEventFormat.salesforceMessaging, 1),
    ])
    func fixtureMatchesItsExpectedEventsAtEveryChunking(
        _ name: String, _ format: ConversationEventFormat, _ unknown: Int
    )
        throws
    {
        let input = try Self.bytes(name + ".sse")
        let expected = try Self.expected(name + ".expected.jsonl")
        #expect(expected.count >= 9)
        for chunking in Chunkings.all(of: input) {
            let (events, decoder) = try decodeLive(chunking.pieces, format: format)
            #expect(events.map(\.jsonValue) == expected, "\(name) \(chunking)")
            #expect(decoder.unknownEventCount == unknown, "\(name) \(chunking)")
            #expect(decoder.skippedErrorCount == 0, "\(name) \(chunking)")
            #expect(decoder.eventCount == expected.count)
        }
    }

    @Test func homeFixtureReadsTypedFields() throws {
        let (events, decoder) = try decodeLive([try Self.bytes("home-all-types.sse")], format: .home)
        #expect(decoder.reconnectionTime == 2000)
        #expect(decoder.lastEventID == "16")
        guard case .messageCreated(let reply) = events[4].kind else {
            Issue.record("the fifth event is \(events[4].kind)")
            return
        }
        #expect(reply.text == "Let me check. \u{e9}\u{1F600}")
        #expect(reply.sender == .agent)
        #expect(reply.createdAt == 1_733_050_002)
        guard case .messageCreated(let human) = events[6].kind, case .conversationUpdated(let updated) = events[7].kind
        else {
            Issue.record("events 7 and 8 are \(events[6].kind), \(events[7].kind)")
            return
        }
        #expect(human.sender == .humanAgent)
        #expect(updated.status == "taken_over" && updated.unreadCount == 2 && updated.updatedAt == 1_733_050_010)
        #expect(events.last?.kind == .reset)
        #expect(events.map(\.conversationId).compactMap { $0 }.allSatisfy { $0 == "c-1" })
    }

    @Test func salesforceFixtureReadsTypedFields() throws {
        let (events, decoder) = try decodeLive(
            [try Self.bytes("salesforce-all-types.sse")], format: .salesforceMessaging)
        let messages = events.compactMap { event -> LiveMessage? in
            if case .messageCreated(let message) = event.kind { return message }
            return nil
        }
        #expect(messages.first?.text == "Where is my order? \u{e9}\u{4e2d}\u{1F600} \"quoted\"\n")
        #expect(messages.first?.sender == .user)
        #expect(messages.first?.createdAt == 1_764_633_602.8)
        // The wait time is `{estimatedWaitTimeInSeconds, isEWTRequested}`; the queue position is its
        // own event (there is no `estimatedWaitTime.positionInQueue`).
        #expect(
            events.first?.kind
                == .routingResult(
                    conversationId: "7c4e2a91-3b5d-4f68-9a0e-1d2c3b4a5f60",
                    result: RoutingResult(routingType: "Initial", estimatedWaitSeconds: 45)))
        #expect(events[1].kind == .queuePosition(conversationId: "7c4e2a91-3b5d-4f68-9a0e-1d2c3b4a5f60", position: 3))
        #expect(events.map(\.id).first == "2001")
        #expect(decoder.lastEventID == "2099")
        #expect(events.allSatisfy { $0.conversationId == "7c4e2a91-3b5d-4f68-9a0e-1d2c3b4a5f60" })
    }

    @Test func malformedEventsAreSkippedAndCountedWithTheirOffsets() throws {
        let input = try Self.bytes("home-malformed.sse")
        let text = String(decoding: input, as: UTF8.self)
        let second = text.utf8.distance(from: text.startIndex, to: text.range(of: "id: 2")!.lowerBound)
        let third = text.utf8.distance(from: text.startIndex, to: text.range(of: "id: 3")!.lowerBound)
        for chunking in Chunkings.all(of: input) {
            let (events, decoder) = try decodeLive(chunking.pieces, format: .home)
            #expect(events.map(\.id) == ["1", "4"], "\(chunking)")
            #expect(decoder.skippedErrorCount == 2)
            #expect(decoder.skippedErrors.map(\.byteOffset) == [second, third], "\(chunking)")
            #expect(decoder.skippedErrors.map(\.kind) == [.invalidJSON, .missingField])
            #expect(decoder.skippedErrors.map(\.field) == ["data", "active"])
            #expect(decoder.skippedErrors[0].description.contains("message.created at byte \(second)"))
        }
    }

    @Test func strictModeThrowsTheFirstMalformedEvent() throws {
        let input = try Self.bytes("home-malformed.sse")
        #expect(throws: ConversationEventError.self) {
            _ = try decodeLive([input], format: .home, configuration: .init(lenient: false))
        }
    }

    static let payloadNotJSON = Array(
        """
        id: 1
        event: CONVERSATION_MESSAGE
        data: {"conversationId":"c","conversationEntry":{"identifier":"e","entryPayload":"{not json"}}

        id: 2
        event: CONVERSATION_CLOSE_CONVERSATION
        data: {"conversationId":"c","conversationEntry":{"identifier":"f"}}


        """.utf8)

    @Test func entryPayloadThatIsNotJSONIsRejectedNamingTheField() throws {
        for chunking in Chunkings.all(of: Self.payloadNotJSON) {
            let (events, decoder) = try decodeLive(chunking.pieces, format: .salesforceMessaging)
            #expect(events.map(\.kind) == [.conversationClosed(conversationId: "c")], "\(chunking)")
            #expect(decoder.skippedErrors.map(\.kind) == [.payloadNotJSON])
            #expect(decoder.skippedErrors.first?.field == "conversationEntry.entryPayload")
            #expect(decoder.skippedErrors.first?.byteOffset == 0)
            #expect(decoder.skippedErrors.first?.description.contains("CONVERSATION_MESSAGE") == true)
        }
    }

    @Test func anEntryPayloadWithEscapesIsParsedFromTheUnescapedBytes() throws {
        // The outer string holds \" and \\u escapes, so yajl unescapes it before the inner parse.
        let input = Array(
            #"""
            event: CONVERSATION_SESSION_STATUS_CHANGED
            data: {"conversationId":"c","conversationEntry":{"entryPayload":"{\"sessionStatus\":\"\u0045nded \\\"x\\\"\"}"}}


            """#.utf8)
        let (events, _) = try decodeLive([input], format: .salesforceMessaging)
        #expect(events.map(\.kind) == [.sessionStatusChanged(conversationId: "c", status: "Ended \"x\"")])
    }

    @Test func anEndlessLineFailsWithinTheLineLimit() throws {
        let limits = ConversationEventDecoder.Configuration(framing: .init(maxLineBytes: 4096, maxEventBytes: 4096))
        var decoder = ConversationEventDecoder(format: .home, configuration: limits)
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1024)
        var failure: FramingError?
        do {
            _ = try decoder.feed(Array("data: ".utf8))
            for _ in 0..<64 { _ = try decoder.feed(piece) }
        } catch let error as FramingError {
            failure = error
        }
        #expect(failure?.kind == .lineTooLong)
    }

    @Test func anEndlessCommentStreamHoldsNoMemoryAndDispatchesNothing() throws {
        var decoder = ConversationEventDecoder(format: .home)
        let comments = Array(String(repeating: ": ping\n", count: 4096).utf8)
        var events: [ConversationEvent] = []
        for _ in 0..<64 { events += try decoder.feed(comments) }
        events += try decoder.feed(Array("event: reset\ndata: {}\n\n".utf8))
        #expect(events.map(\.kind) == [.reset])
        #expect(decoder.unknownEventCount == 0 && decoder.skippedErrorCount == 0)
    }

    /// The heartbeat an idle timeout counts beside the events: `: ping` (one space optional) and
    /// the dialect's keep-alive events; other comments are not heartbeats.
    @Test(arguments: [ConversationEventFormat.home, .salesforceMessaging])
    func heartbeatsAreCountedAtEveryChunking(_ format: ConversationEventFormat) throws {
        let keepAlive =
            format == .home
            ? ": ping\n\n"
            : "event: ping\ndata: {}\n\nevent: keepalive\ndata: {}\n\n"
        let text =
            ": ping\n\n:ping\r\n: pong\n:  ping\n: pings\n:\n\(keepAlive)"
            + ": ping\r: keep-alive\n:ping"  // the last line never ends: not counted
        let expected = format == .home ? 4 : 5
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let (events, decoder) = try decodeLive(chunking.pieces, format: format)
            #expect(events.isEmpty, "\(format) \(chunking)")
            #expect(decoder.heartbeatCount == expected, "\(format) \(chunking)")
            #expect(decoder.eventCount == 0)
        }
    }

    @Test func subscribedCarriesTheStartingPositionBeforeAnyChange() throws {
        let input = Array(
            "retry: 1000\nid: 41\nevent: subscribed\ndata: {}\n\n: ping\n\nid: 42\nevent: reset\ndata: {}\n\n".utf8)
        for chunking in Chunkings.all(of: input) {
            let (events, decoder) = try decodeLive(chunking.pieces, format: .home)
            #expect(events.map(\.kind) == [.subscribed, .reset], "\(chunking)")
            #expect(events.map(\.id) == ["41", "42"], "\(chunking)")
            #expect(events.first?.typeName == "subscribed" && events.first?.conversationId == nil)
            #expect(decoder.unknownEventCount == 0, "\(chunking)")
        }
        // Cut before its blank line, it is not dispatched.
        let (cut, _) = try decodeLive([Array("id: 41\nevent: subscribed\ndata: {}\n".utf8)], format: .home)
        #expect(cut.isEmpty)
    }
}
