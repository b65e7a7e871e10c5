// ConversationState's delivery of a streamed reply to the main actor (issue 22, deliverable 3):
// the deltas that arrived together are applied in one main-actor turn, and the resulting rows are
// exactly what applying them one by one gives. The test also prints the delivery rate for a 1 MB
// reply in 10-byte deltas (a figure for the note, not a check: the machine's load moves it); the
// measurement is DeliveryBenchmark's, which `chatstream-bench --report` runs too.

import ChatStream
import ChatStreamBenchSupport
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@MainActor
@Suite("Main-actor delivery of a streamed reply", .blockingAllowed)
struct MainActorDeliveryTests {
    @Test func aMegabyteReplyArrivesWholeInFewMainActorTurns() async throws {
        let count = 100_000
        let text = DeliveryBenchmark.reply(deltas: count).text
        let (state, result) = await DeliveryBenchmark.intoConversationState(deltas: count)
        #expect(state.error == nil)
        let bubbles = state.messages.filter { $0.sender == .agent }
        #expect(bubbles.count == 1)
        if case .text(let shown) = bubbles.first?.kind { #expect(shown == text) } else { Issue.record("no text row") }
        #expect(result.textIsWhole)
        #expect(bubbles.first?.messageId == "m-big")
        #expect(bubbles.first?.isStreaming == false)
        print(
            "ConversationState: \(count) deltas (1 MB) in \(String(format: "%.3f", result.seconds)) s: "
                + "\(Int(result.eventsPerSecond)) events/s, \(result.turns) main-actor turns")
        #expect(result.turns == state.deliveryTurns)
        #expect(result.turns < count, "deltas that arrive together share a turn")
    }

    @Test func theSameReplyOffTheMainActorArrivesWhole() async throws {
        let result = try await DeliveryBenchmark.offMainActor(deltas: 1000)
        #expect(result.textIsWhole)
        #expect(result.events == 1000)
        #expect(result.turns == 0)
    }

    @Test func theReplyIsTenByteDeltasInOrder() {
        let (body, text) = DeliveryBenchmark.reply(deltas: 3)
        #expect(text == "000000000 000000001 000000002 ")
        let sse = String(decoding: body, as: UTF8.self)
        #expect(sse.hasPrefix("data: "))
        #expect(sse.hasSuffix("data: [DONE]\n\n"))
        #expect(sse.components(separatedBy: "\"text-delta\"").count == 4)
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
