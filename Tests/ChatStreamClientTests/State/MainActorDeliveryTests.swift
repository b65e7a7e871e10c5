// ConversationState's delivery of a streamed reply to the main actor (issue 22, deliverable 3):
// the deltas that arrived together are applied in one main-actor turn, and the resulting rows are
// exactly what applying them one by one gives. The test also prints the delivery rate for a 1 MB
// reply in 10-byte deltas (a figure for the note, not a check: the machine's load moves it).

import ChatStream
import Foundation
import Testing

@testable import ChatStreamClient

@MainActor
@Suite("Main-actor delivery of a streamed reply")
struct MainActorDeliveryTests {
    /// A reply of `count` deltas of ten characters, with a tool call and its result in the middle.
    static func reply(count: Int) -> (events: [JSONTree], text: String) {
        var events: [JSONTree] = [["type": "start", "messageId": "m-big"], ["type": "text-start", "id": "t1"]]
        var text = ""
        for index in 0..<count {
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
        return (events, text)
    }

    @Test func aMegabyteReplyArrivesWholeInFewMainActorTurns() async throws {
        let count = 100_000
        let (events, text) = Self.reply(count: count)
        let body = Wire.sse(events)
        let transport = FakeTransport { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"], body: HTTPBody(bytes: body))
        }
        let state = ConversationState(client: Wire.client(transport))
        let clock = ContinuousClock()
        let elapsed = await clock.measure { await state.sendMessage("a long answer, please") }
        #expect(state.error == nil)
        let bubbles = state.messages.filter { $0.sender == .agent }
        #expect(bubbles.count == 1)
        if case .text(let shown) = bubbles.first?.kind { #expect(shown == text) } else { Issue.record("no text row") }
        #expect(bubbles.first?.messageId == "m-big")
        #expect(bubbles.first?.isStreaming == false)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "ConversationState: \(count) deltas (1 MB) in \(elapsed): \(Int(Double(count) / seconds)) events/s, "
                + "\(state.deliveryTurns) main-actor turns")
        #expect(state.deliveryTurns < count, "deltas that arrive together share a turn")
    }

    @Test func updatesQueuedTogetherScheduleOneTurn() {
        let updates = StreamedUpdates()
        var schedules = 0
        for index in 0..<1000 where updates.add(.text("\(index) ")) { schedules += 1 }
        #expect(schedules == 1)
        let taken = updates.take()
        #expect(taken.count == 1000)
        if case .text(let first) = taken.first { #expect(first == "0 ") } else { Issue.record("order") }
        // After a take, the next update schedules again.
        #expect(updates.add(.text("again")))
        #expect(!updates.add(.text("and again")))
    }
}
