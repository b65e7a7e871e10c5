// ReplyRunner on its own (issue 28, deliverable 6): the rounds of one send (the tool loop), a
// non-streamed round's synthetic events, how rounds merge, and the events that complete a broken
// reply from history, each driven directly rather than through ChatbaseClient.send.

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("ReplyRunner", .blockingAllowed)
struct ReplyRunnerTests {
    /// Everything `emit` was handed, in order.
    final class Emitted: Sendable {
        private let updates = Mutex<[ChatUpdate]>([])
        func append(_ update: ChatUpdate) { updates.withLock { $0.append(update) } }
        var all: [ChatUpdate] { updates.withLock { $0 } }
        var text: String {
            all.compactMap { update -> String? in
                if case .textDelta(_, let delta) = update.event { return delta }
                return nil
            }.joined()
        }
    }

    @Test func aToolRoundIsAnsweredThenTheNextRoundContinuesTheReply() async throws {
        let chats = Atomic<Int>(0)
        let transport = FakeTransport { request in
            switch request.route {
            case "chat":
                if chats.add(1, ordering: .relaxed).oldValue == 0 {
                    return Wire.stream(ToolLoopTests.toolCallReply([("call-1", "weather")], conversationId: "c1"))
                }
                return Wire.stream(Wire.reply("It is sunny", conversationId: "c1", messageId: "m-2"))
            case "conversations/c1/tool-result": return Wire.json(["data": ["ok": true]])
            default: return Wire.error(404, "NOT_FOUND")
            }
        }
        let client = Wire.client(transport)
        client.tool("weather") { _ in .object(["sky": "sunny"]) }
        let accepted = Atomic<Int>(0)
        let emitted = Emitted()
        let response = try await ReplyRunner(client: client).run(
            from: .chat(message: "Weather?", conversationId: "c1", clientMessageId: "cm-1"), streaming: true,
            accepted: { accepted.add(1, ordering: .relaxed) }, emit: { emitted.append($0) })
        #expect(transport.requests.map(\.route) == ["chat", "conversations/c1/tool-result", "chat"])
        // The continuation carries no message and no clientMessageId; the result names its call.
        #expect(transport.requests[2].json["message"] == nil)
        #expect(transport.requests[2].json["clientMessageId"] == nil)
        #expect(transport.requests[1].json["toolCallId"]?.stringValue == "call-1")
        #expect(accepted.load(ordering: .relaxed) == 1)
        #expect(Set(emitted.all.map(\.round)) == [0, 1])
        #expect(response.message.text == "It is sunny")
        #expect(
            response.message.parts.contains { part in
                if case .toolCall(let id, "weather", _) = part { return id == "call-1" }
                return false
            })
        #expect(emitted.text == "It is sunny")
    }

    @Test func theToolLoopStopsBeforeARequestPastItsLimit() async throws {
        let transport = FakeTransport { request in
            request.route == "chat"
                ? Wire.stream(ToolLoopTests.toolCallReply([("call-\(UUID())", "weather")], conversationId: "c1"))
                : Wire.json(["data": ["ok": true]])
        }
        let client = Wire.client(transport, maxToolLoopSteps: 2)
        await #expect(throws: ChatError.toolLoopLimitExceeded(limit: 2)) {
            try await ReplyRunner(client: client).run(
                from: .chat(message: "Loop", conversationId: "c1", clientMessageId: "cm-2"), streaming: true,
                accepted: {}, emit: { _ in })
        }
        #expect(transport.requests.filter { $0.route == "chat" }.count == 2)
    }

    @Test func aNonStreamedRoundIsHandedOverAsEvents() async throws {
        let transport = FakeTransport { _ in
            Wire.json([
                "data": [
                    "id": "m-plain", "role": "assistant", "parts": [["type": "text", "text": "Hello there"]],
                    "metadata": ["conversationId": "c9", "finishReason": "stop"],
                ]
            ])
        }
        let emitted = Emitted()
        let message = try await ReplyRunner(client: Wire.client(transport)).plainRound(
            .chat(message: "Hi", conversationId: nil, clientMessageId: "cm-3"), index: 0, emit: { emitted.append($0) })
        #expect(transport.requests.first?.json["stream"] == .bool(false))
        #expect(message.conversationId == "c9")
        let kinds = emitted.all.map { update -> String in
            switch update.event {
            case .conversationAssigned(let id): return "conversation \(id)"
            case .textDelta(_, let delta): return "text \(delta)"
            case .finish: return "finish"
            default: return "other"
            }
        }
        #expect(kinds == ["conversation c9", "text Hello there", "finish"])
    }

    @Test func roundsMergeTheirPartsAndKeepTheFirstUserMessage() {
        let first = AssembledMessage(id: "m-1", userMessageId: "u-1", parts: [.text("Let me check. ")])
        var second = AssembledMessage(id: "m-2", conversationId: "c1", userMessageId: "u-2", parts: [.text("Sunny.")])
        second.finishReason = .stop
        let merged = ReplyRunner.merge(first, second)
        #expect(merged.parts.compactMap(\.text) == ["Let me check. ", "Sunny."])
        #expect(merged.id == "m-2")
        #expect(merged.userMessageId == "u-1")
        #expect(merged.conversationId == "c1")
        #expect(merged.finishReason == .stop)
        #expect(ReplyRunner.merge(nil, second).id == "m-2")
    }

    @Test func historyCompletesOnlyWhatWasNotSeen() {
        let stored = Message(
            id: "m-h", text: "", sender: .agent, date: Date(timeIntervalSince1970: 0),
            parts: [
                .text("The quick brown fox"),
                .toolCall(toolCallId: "k1", toolName: "lookup", input: ["q": "fox"]),
                .toolResult(toolCallId: "k1", toolName: "lookup", output: ["found": true]),
            ])
        let seen = AssembledMessage(id: "m-h", conversationId: "c1", parts: [.text("The quick")])
        let events = ReplyRunner.unseenEvents(of: stored, after: seen, openTextId: "t1", conversationId: "c1")
        #expect(
            events == [
                .textDelta(id: "t1", delta: " brown fox"), .textEnd(id: "t1"),
                .toolInputAvailable(id: "k1", name: "lookup", input: ["q": "fox"]),
                .toolResult(id: "k1", name: "lookup", output: ["found": true], preliminary: false),
                .finish(reason: .stop, rawReason: "stop"),
            ])
        // Nothing seen yet, and a call with no result: the whole text as its own part, and tool-calls.
        let asking = Message(
            id: "m-a", text: "", sender: .agent, date: Date(timeIntervalSince1970: 0),
            parts: [.text("Checking"), .toolCall(toolCallId: "k2", toolName: "lookup", input: [:])])
        let fresh = ReplyRunner.unseenEvents(
            of: asking, after: AssembledMessage(), openTextId: nil, conversationId: "c2")
        #expect(
            fresh == [
                .messageStart(id: "m-a"), .conversationAssigned(id: "c2"), .textStart(id: "resumed-m-a"),
                .textDelta(id: "resumed-m-a", delta: "Checking"), .textEnd(id: "resumed-m-a"),
                .toolInputAvailable(id: "k2", name: "lookup", input: [:]),
                .finish(reason: .toolCalls, rawReason: "tool-calls"),
            ])
    }
}
