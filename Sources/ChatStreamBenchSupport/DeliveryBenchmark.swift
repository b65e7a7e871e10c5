// DeliveryBenchmark: a 1 MB streamed reply into ConversationState on the main actor, and the same
// reply read off it, for MainActorDeliveryTests and `chatstream-bench --report` (package access;
// the bench's own code, kept out of the ChatStreamClient library).
//
// The reply comes from a scripted transport (every request answered with the same SSE bytes, in
// one piece), so the figure is the client's decoding and the state's main-actor delivery alone:
// no network, no server. The baseline is the same reply through `ChatbaseClient.send` with a
// text callback that only counts, run off the main actor, in the same process.

import ChatStream
import ChatStreamClient
import Foundation
import Synchronization

/// The main-actor delivery measurement (issue 22, deliverable 3).
package enum DeliveryBenchmark {
    /// What one measured send gave.
    package struct Result: Sendable {
        /// Text deltas in the reply.
        package var events: Int
        /// Wall time of the send, in seconds.
        package var seconds: Double
        /// Main-actor turns that applied them (ConversationState only; 0 for the baseline).
        package var turns: Int
        /// Whether the reply's text arrived whole (the bubble's text, or the counted bytes).
        package var textIsWhole: Bool

        /// Text deltas per second.
        package var eventsPerSecond: Double { Double(events) / max(seconds, 1e-9) }
    }

    /// A reply of `deltas` text deltas of ten characters (`000000000 `, `000000001 `, ...): its
    /// SSE bytes and its text. 100,000 deltas give about 1 MB of text in about 6 MB of events.
    package static func reply(deltas: Int) -> (body: [UInt8], text: String) {
        var events: [JSONTree] = [["type": "start", "messageId": "m-big"], ["type": "text-start", "id": "t1"]]
        var text = ""
        text.reserveCapacity(deltas * 10)
        for index in 0..<deltas {
            let delta = String(format: "%09d ", index)
            text += delta
            events.append(["type": "text-delta", "id": "t1", "delta": .string(delta)])
        }
        events += [
            ["type": "text-end", "id": "t1"],
            [
                "type": "finish", "finishReason": "stop",
                "messageMetadata": [
                    "conversationId": "c-big", "messageId": "m-big", "userMessageId": "u-1", "finishReason": "stop",
                ],
            ],
        ]
        var body = events.map { "data: \($0.jsonText)\n\n" }.joined()
        body += "data: [DONE]\n\n"
        return (Array(body.utf8), text)
    }

    /// A client whose every request is answered with `body` as a streamed reply.
    package static func client(body: [UInt8]) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent-1", baseURL: URL(string: "http://scripted.invalid/api")!,
            transport: ScriptedReplyTransport(body: body),
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            retryPolicy: .none, store: nil)
    }

    /// Streams a reply of `deltas` deltas into a new ConversationState and times the send; the
    /// state is returned for checks.
    @MainActor
    package static func intoConversationState(deltas: Int) async -> (state: ConversationState, result: Result) {
        let (body, text) = reply(deltas: deltas)
        let state = ConversationState(client: client(body: body))
        let start = ContinuousClock.now
        await state.sendMessage("a long answer, please")
        let seconds = seconds(ContinuousClock.now - start)
        let shown = state.messages.last { $0.sender == .agent }.flatMap { row -> String? in
            if case .text(let shown) = row.kind { return shown }
            return nil
        }
        let result = Result(events: deltas, seconds: seconds, turns: state.deliveryTurns, textIsWhole: shown == text)
        return (state, result)
    }

    /// The same reply through `ChatbaseClient.send`, its text deltas counted by a callback off the
    /// main actor: what the reply costs without main-actor delivery.
    package static func offMainActor(deltas: Int) async throws -> Result {
        let (body, text) = reply(deltas: deltas)
        let client = client(body: body)
        let counted = Atomic<Int>(0)
        let start = ContinuousClock.now
        let response = try await client.send("a long answer, please") { callbacks in
            callbacks.onTextDelta = { delta in counted.add(delta.utf8.count, ordering: .relaxed) }
        }
        let seconds = seconds(ContinuousClock.now - start)
        let whole = counted.load(ordering: .relaxed) == text.utf8.count && response.message.text == text
        return Result(events: deltas, seconds: seconds, turns: 0, textIsWhole: whole)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Answers every request with the same streamed reply, in one piece.
private struct ScriptedReplyTransport: HTTPTransport {
    let body: [UInt8]

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"], body: HTTPBody(bytes: body))
    }
}
