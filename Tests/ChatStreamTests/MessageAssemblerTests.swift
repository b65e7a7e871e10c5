import ChatStreamJSON
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct MessageAssemblerTests {
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
        var seen: [JSONTree] = []
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

    @Test func snapshotNeverChangesAfterLaterDeltas() {
        var assembler = MessageAssembler()
        assembler.apply(.textDelta(id: "t", delta: "Hel"))
        let early = assembler.message
        let earlyTaken = assembler.message
        assembler.apply(.textDelta(id: "t", delta: "lo"))
        let middle = assembler.message
        assembler.apply(.textDelta(id: "t", delta: " world"))
        #expect(early.parts == [.text("Hel")])
        #expect(earlyTaken.parts == [.text("Hel")])
        #expect(middle.parts == [.text("Hello")])
        #expect(assembler.message.parts == [.text("Hello world")])
    }

    @Test func finishedMessagesKeepTheirTextWhenTheSamePartGrowsAfterwards() {
        var assembler = MessageAssembler()
        assembler.apply(.reasoningDelta(id: "r", delta: "think"))
        let finished = assembler.finish()
        // The part stays open after finish: a late delta of it still joins it.
        assembler.apply(.reasoningDelta(id: "r", delta: "ing"))
        #expect(finished[0].parts == [.reasoning("think")])
        #expect(assembler.message.parts == [.reasoning("thinking")])
        #expect(assembler.messages.map(\.parts) == [[.reasoning("thinking")]])
    }

    @Test func aClosedPartIsNotReopenedByItsIDAndKindsAndIDsDoNotJoin() {
        var assembler = MessageAssembler()
        for event: StreamEvent in [
            .textDelta(id: "a", delta: "1"), .textEnd(id: "a"), .textDelta(id: "a", delta: "2"),
            .source(StreamSource(id: "s", url: "https://example.com")), .textDelta(id: "a", delta: "3"),
            .reasoningDelta(id: "a", delta: "4"), .textDelta(id: "a", delta: "5"), .textDelta(id: "b", delta: "6"),
            .refusalDelta(id: "b", delta: "7"), .refusalDelta(id: "b", delta: "8"),
            .metadata(StreamMetadata(usage: ["tokens": 3])), .refusalDelta(id: "b", delta: "9"),
        ] {
            assembler.apply(event)
        }
        #expect(
            assembler.message.parts == [
                .text("1"), .text("2"), .source(StreamSource(id: "s", url: "https://example.com")), .text("3"),
                .reasoning("4"), .text("5"), .text("6"), .refusal("789"),
            ])
    }

    @Test func toolInputStreamingWhileTextIsOpenKeepsTheTextOpen() {
        var assembler = MessageAssembler()
        for event: StreamEvent in [
            .toolCallStart(id: "c", name: "search", providerExecuted: false), .textDelta(id: "t", delta: "look"),
            .toolInputDelta(id: "c", delta: #"{"q":"x"}"#), .textDelta(id: "t", delta: "ing"),
        ] {
            assembler.apply(event)
        }
        #expect(
            assembler.message.parts == [
                .toolCall(ToolCallPart(toolCallId: "c", toolName: "search", input: ["q": "x"], state: .streaming)),
                .text("looking"),
            ])
    }

    @Test func eachChoiceHoldsItsOwnOpenPart() {
        var assembler = MessageAssembler()
        for event: StreamEvent in [
            .textDelta(id: "t", delta: "a"), .choice(index: 1), .textDelta(id: "t", delta: "b"), .choice(index: 0),
            .textDelta(id: "t", delta: "c"), .choice(index: 1), .textDelta(id: "t", delta: "d"),
        ] {
            assembler.apply(event)
        }
        #expect(assembler.messages.map(\.parts) == [[.text("ac")], [.text("bd")]])
        #expect(assembler.finish().map(\.text) == ["ac", "bd"])
    }

    @Test func textOfSeveralTextPartsJoinsThemAndSkipsOtherParts() {
        let message = AssembledMessage(parts: [.text("a"), .reasoning("x"), .text("b"), .refusal("y"), .text("c")])
        #expect(message.text == "abc")
        #expect(AssembledMessage(parts: [.reasoning("x")]).text == "")
        #expect(AssembledMessage(parts: [.reasoning("x"), .text("only")]).text == "only")
    }

    /// The assembler against a plain model of the joining rules, with a snapshot read (both
    /// ways) after every event and every earlier snapshot checked to be unchanged at the end.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func matchesAPlainModelWithSnapshotsAfterEveryEvent(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var assembler = MessageAssembler()
        var taking = MessageAssembler()
        var modelParts: [AssembledPart] = []
        var modelOpen: (kind: Int, id: String)? = nil
        var snapshots: [(AssembledMessage, [AssembledPart])] = []
        for step in 0..<400 {
            let id = ["", "a", "b", "a long identifier beyond fifteen bytes"][Int.random(in: 0..<4, using: &random)]
            let delta = String(repeating: "\(step % 10)é", count: Int.random(in: 0...12, using: &random))
            let kind = Int.random(in: 0..<8, using: &random)
            let event: StreamEvent
            switch kind {
            case 0, 1, 2: event = .textDelta(id: id, delta: delta)
            case 3: event = .reasoningDelta(id: id, delta: delta)
            case 4: event = .refusalDelta(id: id, delta: delta)
            case 5: event = .textEnd(id: id)
            case 6: event = .data(name: "n", id: nil, data: .string(delta), transient: false)
            default: event = .finish(reason: .stop, rawReason: "stop")
            }
            assembler.apply(event)
            taking.apply(event)
            switch kind {
            case 0...4:
                let textKind = kind <= 2 ? 0 : kind  // 0 text, 3 reasoning, 4 refusal
                func part(_ text: String) -> AssembledPart {
                    textKind == 3 ? .reasoning(text) : textKind == 4 ? .refusal(text) : .text(text)
                }
                if let open = modelOpen, open.kind == textKind, open.id == id {
                    switch modelParts.removeLast() {
                    case .text(let text), .reasoning(let text), .refusal(let text):
                        modelParts.append(part(text + delta))
                    default: Issue.record("the model's open part is not text-like")
                    }
                } else {
                    modelParts.append(part(delta))
                    modelOpen = (textKind, id)
                }
            case 5: modelOpen = nil
            case 6:
                modelParts.append(.data(name: "n", id: nil, data: .string(delta)))
                modelOpen = nil
            default: break
            }
            let read = assembler.message
            let taken = taking.message
            #expect(read.parts == modelParts, "seed \(seed), step \(step)")
            #expect(taken.parts == modelParts, "seed \(seed), step \(step)")
            if step % 7 == 0 {
                snapshots.append((read, modelParts))
                snapshots.append((taken, modelParts))
            }
        }
        for (snapshot, parts) in snapshots { #expect(snapshot.parts == parts) }
        #expect(assembler.finish().map(\.parts) == [modelParts])
    }

    /// Several tool calls streaming their inputs interleaved, in random pieces, some settled
    /// mid-way (and streaming again after): after every event each call's input is what one
    /// fresh parser makes of all its deltas since it was last settled, whichever call came last.
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func interleavedToolInputsMatchOneParserPerCall(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let ids = ["", "c1", "c2", "toolu_01A09q90qw90lq917835lq9"]
        let inputs = ids.map { id in #"{"id":"\#(id)","text":"é ok \"q\" \u00e9","n":[1,2.5,{"k":true}]}"# }
        var sent = Array(repeating: 0, count: ids.count)
        var since = Array(repeating: "", count: ids.count)
        var assembler = MessageAssembler()
        for (k, id) in ids.enumerated() where k % 2 == 1 {
            assembler.apply(.toolCallStart(id: id, name: "tool\(k)", providerExecuted: false))
        }
        for step in 0..<600 {
            let k = Int.random(in: 0..<ids.count, using: &random)
            let bytes = Array(inputs[k].utf8)
            if sent[k] == bytes.count || Int.random(in: 0..<40, using: &random) == 0 {
                assembler.apply(.toolInputAvailable(id: ids[k], name: "", input: ["done": .number(JSONNumber(step))]))
                sent[k] = 0
                since[k] = ""
            } else {
                let end = min(bytes.count, sent[k] + Int.random(in: 1...4, using: &random))
                var cut = end
                while cut < bytes.count, bytes[cut] & 0xC0 == 0x80 { cut += 1 }  // whole scalars per delta
                let piece = String(decoding: bytes[sent[k]..<cut], as: UTF8.self)
                sent[k] = cut
                since[k] += piece
                assembler.apply(.toolInputDelta(id: ids[k], delta: piece))
                var parser = PartialJSONParser()
                try parser.append(since[k])
                let call = try #require(assembler.message.toolCalls.first { $0.toolCallId == ids[k] })
                #expect(call.input == (parser.value ?? .null), "seed \(seed), step \(step), call \(k)")
            }
            if Int.random(in: 0..<5, using: &random) == 0 { assembler.apply(.textDelta(id: "t", delta: "x")) }
        }
        #expect(assembler.message.toolCalls.count == ids.count)
        for (k, id) in ids.enumerated() where k % 2 == 1 {
            #expect(assembler.message.toolCalls.first { $0.toolCallId == id }?.toolName == "tool\(k)")
        }
    }
}
