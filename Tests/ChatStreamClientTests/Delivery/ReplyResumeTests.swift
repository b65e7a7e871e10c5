// A reply whose stream breaks is picked up again by the client itself (PROTOCOLS.md section 8),
// against a scripted server: the stream cut at every byte (the body ending early, the connection
// lost or stalled), the resume route answering, missing (404) or expired (410, then history), a
// 429 or 5xx on the way, a stream that never gets further (the budget ends it with what arrived
// kept), an interrupted reply (an error chunk) and a stopped one. Every case checks that the app's
// callbacks got each byte of text exactly once and that the response is whole.

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

/// A reply as a section 8 server streams it: every event with an `id:`.
struct ScriptedReply {
    static let conversationId = "c0a8e1f2-3b4c-4d5e-8f60-718293a4b5c6"
    static let messageId = "m-resumed"
    let text: String
    let events: [JSONTree]
    let bytes: [UInt8]

    init(text: String = "The quick brown fox jumps over the lazy dog, then naps in the afternoon sun.") {
        self.text = text
        var events: [JSONTree] = [
            [
                "type": "start", "messageId": .string(Self.messageId),
                "messageMetadata": [
                    "conversationId": .string(Self.conversationId), "messageId": .string(Self.messageId),
                    "userMessageId": "u-1",
                ],
            ],
            ["type": "text-start", "id": "t1"],
        ]
        var rest = Substring(text)
        while !rest.isEmpty {
            let word = rest.prefix(7)
            rest = rest.dropFirst(7)
            events.append(["type": "text-delta", "id": "t1", "delta": .string(String(word))])
        }
        events.append(["type": "text-end", "id": "t1"])
        events.append([
            "type": "finish", "finishReason": "stop",
            "messageMetadata": [
                "conversationId": .string(Self.conversationId), "messageId": .string(Self.messageId),
                "userMessageId": "u-1", "finishReason": "stop",
            ],
        ])
        self.events = events
        var wire = ""
        for (index, event) in events.enumerated() { wire += "id: \(index + 1)\ndata: \(event.jsonText)\n\n" }
        wire += "id: \(events.count + 1)\ndata: [DONE]\n\n"
        bytes = Array(wire.utf8)
    }

    /// The reply as history holds it.
    var historyMessage: JSONTree {
        [
            "id": .string(Self.messageId), "role": "assistant", "parts": [["type": "text", "text": .string(text)]],
            "createdAt": 1_700_000_000, "feedback": nil,
        ]
    }

    /// How a connection ends after `count` bytes.
    enum End: Sendable, CaseIterable {
        /// The body just stops (the server or a proxy closed the connection).
        case closed
        /// The transport reports the connection lost.
        case lost
        /// The transport's idle timeout fired (a stalled stream).
        case stalled
    }

    /// The first `count` bytes in `chunks`-sized pieces, then `end` (the whole stream when `count` is nil).
    func body(upTo count: Int?, end: End = .closed, pieces: Int = 5) -> HTTPBody {
        let slice = Array(bytes.prefix(count ?? bytes.count))
        var chunks: [[UInt8]] = []
        var index = 0
        while index < slice.count {
            chunks.append(Array(slice[index..<min(slice.count, index + pieces)]))
            index += pieces
        }
        let failure: TransportError? =
            count == nil || end == .closed
            ? nil
            : end == .lost
                ? TransportError(.connectionLost, "the network connection was lost")
                : TransportError(.timedOut, "no data for 60 s")
        let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish(throwing: failure)
        }
        return HTTPBody(stream)
    }

    func response(upTo count: Int?, end: End = .closed) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: ["Content-Type": "text/event-stream", "X-Message-Id": Self.messageId],
            body: body(upTo: count, end: end))
    }
}

/// Collects what the app's callbacks were handed.
final class HandedOver: Sendable {
    private let text = Mutex("")
    var value: String { text.withLock { $0 } }
    func configure(_ callbacks: inout StreamCallbacks) {
        callbacks.onTextDelta = { delta in self.text.withLock { $0 += delta } }
    }
}

@Suite("A broken reply is resumed by the client", .blockingAllowed)
struct ReplyResumeTests {
    static let reply = ScriptedReply()

    static func client(_ transport: FakeTransport, attempts: Int = 4) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            retryPolicy: .init(
                maxAttempts: attempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2),
                totalBudget: .seconds(5)),
            store: nil)
    }

    static let resumeRoute = "conversations/\(ScriptedReply.conversationId)/messages/\(ScriptedReply.messageId)/stream"

    /// Cut at every byte of the reply: the resume route replays it and the app sees each byte once.
    @Test(arguments: ScriptedReply.End.allCases)
    func aReplyCutAtAnyByteIsCompletedOnce(end: ScriptedReply.End) async throws {
        let reply = Self.reply
        for cut in 0..<reply.bytes.count {
            let transport = FakeTransport { request in
                if request.route == "chat" { return reply.response(upTo: cut, end: end) }
                #expect(request.route == Self.resumeRoute)
                return reply.response(upTo: nil)
            }
            let seen = HandedOver()
            let response = try await Self.client(transport).send(
                "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
            #expect(seen.value == reply.text, "cut at \(cut), \(end)")
            #expect(response.message.text == reply.text, "cut at \(cut), \(end)")
            #expect(response.message.id == ScriptedReply.messageId)
            #expect(response.finishReason == .stop)
            #expect(transport.requests.count <= 2, "cut at \(cut)")
        }
    }

    /// A reply cut before its `start` event, with no `X-Message-Id`: nothing names the reply, so
    /// the chat is sent again with the same clientMessageId into its conversation (section 6
    /// replays its reply); a message that starts a conversation is not resent (it would start another).
    @Test func aReplyCutBeforeItsStartIsResentWithTheSameClientMessageId() async throws {
        let reply = Self.reply
        let posts = Mutex(0)
        let transport = FakeTransport { request in
            #expect(request.route == "chat")
            let first = posts.withLock { count in
                count += 1
                return count == 1
            }
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                body: reply.body(upTo: first ? 3 : nil, end: .lost))
        }
        let seen = HandedOver()
        let response = try await Self.client(transport).send(
            "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
        #expect(seen.value == reply.text)
        #expect(response.message.text == reply.text)
        #expect(response.conversationId == ScriptedReply.conversationId)
        let ids = transport.requests.map { $0.json["clientMessageId"]?.stringValue }
        #expect(ids.count == 2)
        #expect(ids[0] != nil && ids[0] == ids[1])

        posts.withLock { $0 = 0 }
        let fresh = Self.client(transport)
        await #expect(throws: APIError.self) { try await fresh.send("starts a conversation") }
        #expect(posts.withLock { $0 } == 1)
    }

    /// Without section 8 (404 on the route) or after the events expired (410), the reply is read
    /// from history and only the text the app has not seen is handed over.
    @Test(arguments: [404, 410])
    func withoutTheRouteTheRestComesFromHistory(status: Int) async throws {
        let reply = Self.reply
        for cut in stride(from: 0, to: reply.bytes.count, by: 7) {
            let transport = FakeTransport { request in
                switch request.route {
                case "chat": return reply.response(upTo: cut, end: .lost)
                case Self.resumeRoute:
                    return status == 404
                        ? Wire.error(404, "NOT_FOUND", "no such route")
                        : Wire.error(410, "RESOURCE_REPLY_EXPIRED", "gone")
                case "conversations/\(ScriptedReply.conversationId)/messages":
                    return Wire.page([reply.historyMessage], request: request)
                default: return Wire.error(500, "UNEXPECTED", request.route)
                }
            }
            let seen = HandedOver()
            let response = try await Self.client(transport).send(
                "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
            #expect(seen.value == reply.text, "cut at \(cut)")
            #expect(response.message.text == reply.text, "cut at \(cut)")
            #expect(response.conversationId == ScriptedReply.conversationId)
            #expect(response.assembledMessage.parts.count == 1, "cut at \(cut)")
        }
    }

    /// Without the route, a reply a server restart interrupted (history `metadata.interrupted`,
    /// the text it had) ends failed as the resume route would end it, the text kept: not as a
    /// whole reply. Its history rows show it failed, so it can be retried.
    @Test func anInterruptedReplyFromHistoryEndsFailed() async throws {
        let reply = Self.reply
        let had = String(reply.text.prefix(30))
        let interrupted: JSONTree = [
            "id": .string(ScriptedReply.messageId), "role": "assistant",
            "parts": [["type": "text", "text": .string(had)]],
            "createdAt": 1_700_000_000, "feedback": nil, "metadata": ["interrupted": true],
        ]
        let transport = FakeTransport { request in
            switch request.route {
            case "chat": return reply.response(upTo: 200, end: .lost)
            case Self.resumeRoute: return Wire.error(404, "NOT_FOUND")
            default: return Wire.page([interrupted], request: request)
            }
        }
        let seen = HandedOver()
        let failure = await #expect(throws: APIError.self) {
            try await Self.client(transport).send(
                "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
        }
        #expect(failure?.statusCode == 500)
        #expect(failure?.replyStreamError?.partialMessage.text == had)
        #expect(seen.value == had)
        let message = try #require(try WireDecoding.decodeValue(interrupted, WireDecoding.message))
        #expect(message.isInterrupted)
        #expect(message.jsonValue["metadata"]?["interrupted"] == true)
        let rows = await ConversationState.rows(for: message)
        #expect(rows.map { $0.isError } == [true])
    }

    /// History does not have the reply yet (still generating): asked again within the budget.
    @Test func historyIsAskedAgainWhileTheReplyIsNotStored() async throws {
        let reply = Self.reply
        let pageAnswers = Mutex(0)
        let transport = FakeTransport { request in
            switch request.route {
            case "chat": return reply.response(upTo: 200, end: .lost)
            case Self.resumeRoute: return Wire.error(404, "NOT_FOUND")
            default:
                let stored = pageAnswers.withLock { count in
                    count += 1
                    return count >= 3
                }
                return Wire.page(stored ? [reply.historyMessage] : [], request: request)
            }
        }
        let seen = HandedOver()
        let response = try await Self.client(transport, attempts: 5).send(
            "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
        #expect(seen.value == reply.text)
        #expect(response.message.text == reply.text)
        #expect(pageAnswers.withLock { $0 } == 3)
    }

    /// A 429 with Retry-After and a 503 on the resume route are waited out.
    @Test func aRateLimitedOrFailingResumeIsRetried() async throws {
        let reply = Self.reply
        let resumes = Mutex(0)
        let transport = FakeTransport { request in
            if request.route == "chat" { return reply.response(upTo: 150, end: .lost) }
            let attempt = resumes.withLock { count in
                count += 1
                return count
            }
            switch attempt {
            case 1: return Wire.error(429, "RATE_LIMIT_TOO_MANY_REQUESTS", headers: ["Retry-After": "0"])
            case 2: return Wire.error(503, "UNAVAILABLE")
            default: return reply.response(upTo: nil)
            }
        }
        let seen = HandedOver()
        let response = try await Self.client(transport).send(
            "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
        #expect(seen.value == reply.text)
        #expect(response.message.text == reply.text)
        #expect(resumes.withLock { $0 } == 3)
    }

    /// A reply that is cut again and again, a little further each time, still completes (the
    /// attempts start again whenever a connection brought new events).
    @Test func aReplyCutRepeatedlyWithProgressCompletes() async throws {
        let reply = Self.reply
        let connections = Mutex(0)
        let transport = FakeTransport { request in
            let number = connections.withLock { count in
                count += 1
                return count
            }
            return reply.response(upTo: min(reply.bytes.count, number * 120), end: .lost)
        }
        let seen = HandedOver()
        let response = try await Self.client(transport, attempts: 4).send(
            "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
        #expect(seen.value == reply.text)
        #expect(response.message.text == reply.text)
    }

    /// A stream that never gets further ends, after the retry budget, with a clear error that
    /// keeps everything received; nothing was handed over twice.
    @Test func aReplyThatNeverGetsFurtherFailsWithWhatArrivedKept() async throws {
        let reply = Self.reply
        let transport = FakeTransport { _ in reply.response(upTo: 400, end: .lost) }
        let seen = HandedOver()
        let error = await #expect(throws: APIError.self) {
            try await Self.client(transport, attempts: 3).send(
                "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
        }
        let partial = try #require(error?.replyStreamError?.partialMessage)
        #expect(!partial.text.isEmpty)
        #expect(reply.text.hasPrefix(partial.text))
        #expect(seen.value == partial.text)
        #expect(transport.requests.count == 3)
        #expect(error?.replyStreamError?.transportError?.kind == .connectionLost)
    }

    /// A reply cut by a server restart: the route ends it with an error chunk; it fails (not
    /// resumed again), with the text it had.
    @Test func anInterruptedReplyFailsWithItsText() async throws {
        let reply = Self.reply
        let transport = FakeTransport { request in
            if request.route == "chat" { return reply.response(upTo: 300, end: .closed) }
            let text =
                "id: 99\ndata: {\"type\":\"error\",\"errorText\":\"interrupted by a restart\"}\n\nid: 100\ndata: [DONE]\n\n"
            return HTTPResponse(status: 200, headers: [:], body: HTTPBody(bytes: Array(text.utf8)))
        }
        let seen = HandedOver()
        let error = await #expect(throws: APIError.self) {
            try await Self.client(transport).send(
                "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
        }
        let partial = try #require(error?.replyStreamError?.partialMessage)
        #expect(partial.error?.message.contains("interrupted") == true)
        #expect(seen.value == partial.text)
        #expect(transport.requests.count == 2)
    }

    /// Stopping: the route is posted to, and the stream that then ends with abort and finish
    /// returns the partial reply as the response.
    @Test func aStoppedReplyReturnsItsPartialText() async throws {
        let reply = Self.reply
        let stopRoute = "conversations/\(ScriptedReply.conversationId)/messages/\(ScriptedReply.messageId)/stop"
        let transport = FakeTransport { request in
            if request.route == stopRoute {
                #expect(request.method == "POST")
                return Wire.json(["data": reply.historyMessage])
            }
            let head = reply.events.prefix(4).enumerated().map {
                "id: \($0.offset + 1)\ndata: \($0.element.jsonText)\n\n"
            }
            let bytes = Array(
                (head.joined() + "id: 5\ndata: {\"type\":\"abort\"}\n\n"
                    + "id: 6\ndata: {\"type\":\"finish\",\"finishReason\":\"stop\",\"messageMetadata\":{\"aborted\":true}}\n\n"
                    + "id: 7\ndata: [DONE]\n\n").utf8)
            return HTTPResponse(status: 200, headers: [:], body: HTTPBody(bytes: bytes))
        }
        let client = Self.client(transport)
        let stored = try await client.stopReply(
            conversationId: ScriptedReply.conversationId, messageId: ScriptedReply.messageId)
        #expect(stored?.id == ScriptedReply.messageId)
        let seen = HandedOver()
        let response = try await client.send(
            "hi", conversationId: ScriptedReply.conversationId, configure: seen.configure)
        #expect(response.finishReason == .stop)
        #expect(response.message.text == seen.value)
        #expect(!seen.value.isEmpty && reply.text.hasPrefix(seen.value) && seen.value != reply.text)
    }
}
