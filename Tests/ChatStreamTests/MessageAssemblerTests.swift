import Testing

@testable import ChatStream

@Suite struct MessageAssemblerTests {
    @Test func adjacentDeltasJoinAndOtherPartsKeepStreamOrder() {
        var assembler = MessageAssembler()
        for event: StreamEvent in [
            .textDelta(id: "a", delta: "Hel"), .textDelta(id: "a", delta: "lo"),
            .toolCallStart(id: "c1", name: "search", providerExecuted: false),
            .toolInputAvailable(id: "c1", name: "search", input: ["q": "x"]),
            .toolResult(id: "c1", name: nil, output: "found", preliminary: false),
            .textDelta(id: "a", delta: "Again"), .reasoningDelta(id: "r", delta: "hm"),
        ] {
            assembler.apply(event)
        }
        let parts = assembler.message.parts
        #expect(
            parts == [
                .text("Hello"),
                .toolCall(ToolCallPart(toolCallId: "c1", toolName: "search", input: ["q": "x"])),
                .toolResult(ToolResultPart(toolCallId: "c1", toolName: "search", output: "found")),
                .text("Again"), .reasoning("hm"),
            ])
    }

    @Test func partialToolInputIsAvailableAfterEveryDelta() {
        var assembler = MessageAssembler()
        assembler.apply(.toolCallStart(id: "c", name: "weather", providerExecuted: false))
        var seen: [JSONValue] = []
        for piece in [#"{"ci"#, #"ty":"Par"#, #"is","days":"#, "3", "}"] {
            assembler.apply(.toolInputDelta(id: "c", delta: piece))
            seen.append(assembler.message.toolCalls[0].input)
        }
        #expect(seen[1] == ["city": "Par"])
        #expect(seen[2] == ["city": "Paris"])
        #expect(seen[4] == ["city": "Paris", "days": 3])
        #expect(assembler.message.toolCalls[0].state == .streaming)
        assembler.apply(.toolInputAvailable(id: "c", name: "weather", input: ["city": "Paris", "days": 3]))
        #expect(assembler.message.toolCalls[0].state == .available)
    }

    @Test func choicesAssembleSeparately() {
        var assembler = MessageAssembler()
        for event: StreamEvent in [
            .textDelta(id: "t", delta: "zero"), .choice(index: 1), .textDelta(id: "t", delta: "one"),
            .finish(reason: .length, rawReason: "length"), .choice(index: 0), .finish(reason: .stop, rawReason: "stop"),
        ] {
            assembler.apply(event)
        }
        let messages = assembler.finish()
        #expect(messages.map(\.text) == ["zero", "one"])
        #expect(messages.map(\.finishReason) == [.stop, .length])
        #expect(messages.map(\.choice) == [0, 1])
    }

    @Test func errorOnFinishIsRecordedWithoutLosingParts() {
        var assembler = MessageAssembler()
        assembler.apply(.textDelta(id: "t", delta: "partial"))
        let messages = assembler.finish(error: StreamError(.truncated, message: "cut"))
        #expect(messages[0].text == "partial")
        #expect(messages[0].error?.code == "STREAM_TRUNCATED")
        #expect(messages[0].isFinished)
    }

    @Test func toolInputDeltaForUnknownCallIsKeptAndUnknownResultIsKept() {
        var assembler = MessageAssembler()
        assembler.apply(.toolInputDelta(id: "ghost", delta: "{}"))
        assembler.apply(.toolResult(id: "nobody", name: nil, output: 1, preliminary: false))
        #expect(assembler.message.toolCalls.map(\.toolCallId) == ["ghost"])
        #expect(assembler.message.parts.count == 2)
    }

    @Test func preliminaryResultIsReplacedByTheFinalOne() {
        var assembler = MessageAssembler()
        assembler.apply(.toolResult(id: "c", name: "t", output: "draft", preliminary: true))
        assembler.apply(.toolResult(id: "c", name: "t", output: "final", preliminary: false))
        #expect(
            assembler.message.parts == [.toolResult(ToolResultPart(toolCallId: "c", toolName: "t", output: "final"))])
    }
}
