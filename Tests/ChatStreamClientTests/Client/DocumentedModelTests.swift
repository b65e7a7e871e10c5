// The documented models (JSONValue, MessagePart, FinishReason, Usage, Message, ChatResponse) and
// the behaviour rules the Chatbase SDK docs state for them.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Documented models", .blockingAllowed)
struct DocumentedModelTests {
    @Test func wireNumbersWithAFractionAreNumbersSoIntValueOfNinePointZeroIsNil() throws {
        let tree = try JSONTree(parsing: Array(#"{"a":9,"b":9.0,"c":1e3,"d":-4,"e":12345678901234567890}"#.utf8))
        let value = JSONValue(tree)
        #expect(value["a"] == .int(9))
        #expect(value["a"]?.intValue == 9)
        #expect(value["b"] == .number(9))
        #expect(value["b"]?.intValue == nil)
        #expect(value["b"]?.numberValue == 9)
        #expect(value["c"] == .number(1000))
        #expect(value["c"]?.intValue == nil)
        #expect(value["d"]?.intValue == -4)
        #expect(value["e"]?.intValue == nil)
        #expect(value["e"]?.numberValue == 12_345_678_901_234_567_890)
    }

    @Test func jsonValueAccessorsAndChainedLookups() {
        let input: JSONValue = .object([
            "location": .object(["city": .string("Paris")]), "n": .int(3), "ok": .bool(true),
            "list": .array([.null, .number(1.5)]),
        ])
        #expect(input["location"]?["city"]?.stringValue == "Paris")
        #expect(input["missing"]?["city"] == nil)
        #expect(input["location"]?["city"]?["deeper"] == nil)
        #expect(input["n"]?.numberValue == 3)
        #expect(input["n"]?.stringValue == nil)
        #expect(input["ok"]?.boolValue == true)
        #expect(input["list"]?.arrayValue?.count == 2)
        #expect(input.objectValue?.count == 4)
        let literal: JSONValue = ["error": "Missing order_id", "count": 2, "ratio": 0.5, "none": nil]
        #expect(
            literal
                == .object([
                    "error": .string("Missing order_id"), "count": .int(2), "ratio": .number(0.5), "none": .null,
                ]))
    }

    @Test func jsonValueRoundTripsThroughTheCoreTreeAndCodable() throws {
        let value: JSONValue = .object([
            "s": "x", "i": .int(-7), "d": .number(2.25), "b": false, "a": [.int(1), "two", nil],
            "o": ["k": .number(9)],
        ])
        #expect(JSONValue(value.jsonTree) == value)
        #expect(value.jsonText == #"{"a":[1,"two",null],"b":false,"d":2.25,"i":-7,"o":{"k":9.0},"s":"x"}"#)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(value.jsonText.utf8))
        #expect(decoded["s"] == "x")
        #expect(decoded["i"] == .int(-7))
        #expect(decoded["d"] == .number(2.25))
        #expect(decoded["a"] == [.int(1), "two", nil])
    }

    @Test func messagePartsConvertBothWaysAndRichPartsStayInAssembledParts() {
        let documented: [MessagePart] = [
            .text("hi"), .toolCall(toolCallId: "c1", toolName: "weather", input: ["city": "Paris"]),
            .toolResult(toolCallId: "c1", toolName: "weather", output: ["sky": "clear", "t": .int(21)]),
        ]
        #expect(documented.map(AssembledPart.init).compactMap(MessagePart.init) == documented)
        #expect(MessagePart(.reasoning("thinking")) == nil)
        #expect(MessagePart(.unknown(type: "hologram", raw: ["type": "hologram"])) == nil)

        let message = Message(
            id: "m1", sender: .agent, date: Date(timeIntervalSince1970: 5),
            assembledParts: [.reasoning("hmm"), .text("Hello "), AssembledPart(documented[1]), .text("world")])
        #expect(message.text == "Hello \nworld")  // text parts one per line, as the SDK joins them
        #expect(message.parts.count == 3)
        #expect(message.assembledParts.count == 4)
        let built = Message(id: "m2", text: "plain", sender: .user, date: Date(timeIntervalSince1970: 1))
        #expect(built.parts.isEmpty)
        #expect(built.feedback == nil && built.score == nil)
    }

    @Test func finishReasonsNarrowToTheThreeDocumentedOnes() {
        #expect(FinishReason(.stop) == .stop)
        #expect(FinishReason(.toolCalls) == .toolCalls)
        #expect(FinishReason(.error) == .error)
        #expect(FinishReason(.length) == .stop)
        #expect(FinishReason(.contentFilter) == .stop)
        #expect(FinishReason(nil) == .stop)
        #expect(FinishReason.toolCalls.rawValue == "tool-calls")
        #expect(Usage(json: ["credits": 2.5, "tokens": 10]).credits == 2.5)
        #expect(Usage(json: nil).credits == 0)
    }

    @Test func aHistoryMessageWithoutADateIsDatedNowAndTheRestOfThePageStays() async throws {
        let undated: JSONTree = ["id": "m-undated", "role": "assistant", "parts": [["type": "text", "text": "x"]]]
        let dated = Wire.messageJSON("m-dated", text: "y", at: 1_700_000_000)
        let client = Wire.client(
            FakeTransport { _ in
                Wire.json([
                    "data": [undated, dated], "pagination": ["cursor": nil, "hasMore": false, "total": 2],
                ])
            })
        let before = Date()
        let page = try await client.listMessages(conversationId: "c1")
        let after = Date()
        #expect(page.data.map(\.id) == ["m-undated", "m-dated"])
        #expect(page.total == 2)
        let date = try #require(page.data.first?.date)
        #expect(date >= before.addingTimeInterval(-1) && date <= after.addingTimeInterval(1))
        #expect(page.data[1].date == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func aPageWithoutATotalCountsItsOwnItems() async throws {
        let client = Wire.client(
            FakeTransport { _ in
                Wire.json(["data": [Wire.messageJSON("a", text: "x")], "pagination": ["hasMore": false]])
            })
        let page = try await client.listMessages(conversationId: "c1")
        #expect(page.total == 1)
        #expect("Total: \(page.total)" == "Total: 1")
        #expect(try await page.loadMore() == nil)
    }

    @Test func aPageBuiltByHandLoadsMoreOnlyWhileItHasMore() async throws {
        let last = PaginatedResponse<Int>(data: [3], hasMore: false, total: 3) { fatalError("not called") }
        let first = PaginatedResponse<Int>(data: [1, 2], hasMore: true, total: 3) { last }
        #expect(try await first.loadMore()?.data == [3])
        #expect(try await last.loadMore() == nil)
    }
}

extension PaginatedResponse: Equatable where T: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.data == rhs.data && lhs.hasMore == rhs.hasMore && lhs.total == rhs.total
    }
}
