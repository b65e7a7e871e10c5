// GeminiDialect on hand-written streamed arrays (no Gemini captures exist), framed with HandFraming.

import ChatStream
import TestSupport
import Testing

@Suite(.blockingAllowed) struct GeminiDialectTests {
    static let stream = """
        [{"candidates":[{"content":{"role":"model","parts":[{"text":"Thinking about Paris","thought":true}]}}],"usageMetadata":{"promptTokenCount":9},"responseId":"resp-1"}
        ,{"candidates":[{"content":{"role":"model","parts":[{"text":"Bonjour, "},{"text":"Paris ☀️"}]}}],"usageMetadata":{"promptTokenCount":9}}
        ,{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}}]}
        ,{"candidates":[{"content":{"role":"model","parts":[{"text":"Done."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":7,"totalTokenCount":16}}
        ]
        """

    static func decode(_ text: String) -> HandResult {
        HandFraming.run(GeminiDialect.self, HandFraming.jsonArray(text))
    }

    @Test func fullStreamExactEvents() {
        let result = Self.decode(Self.stream)
        #expect(result.error == nil)
        #expect(
            result.events == [
                .messageStart(id: "resp-1"),
                .reasoningStart(id: "reasoning-0"), .reasoningDelta(id: "reasoning-0", delta: "Thinking about Paris"),
                .metadata(StreamMetadata(usage: ["promptTokenCount": 9])),
                .reasoningEnd(id: "reasoning-0"),
                .textStart(id: "text-1"), .textDelta(id: "text-1", delta: "Bonjour, "),
                .textDelta(id: "text-1", delta: "Paris ☀️"), .textEnd(id: "text-1"),
                .toolCallStart(id: "call-0", name: "get_weather", providerExecuted: false),
                .toolInputDelta(id: "call-0", delta: #"{"city":"Paris"}"#),
                .toolInputAvailable(id: "call-0", name: "get_weather", input: ["city": "Paris"]),
                .textStart(id: "text-2"), .textDelta(id: "text-2", delta: "Done."),
                .metadata(
                    StreamMetadata(usage: ["promptTokenCount": 9, "candidatesTokenCount": 7, "totalTokenCount": 16])),
                // The finish reason is held for the end of the array (it may repeat), and STOP in
                // a message with function calls means tool calls.
                .textEnd(id: "text-2"), .finish(reason: .toolCalls, rawReason: "STOP"), .done,
            ])
        expectWellFormed(result.events)
    }

    @Test func elementsAreFoundWhereverTheyStart() {
        // The array framing's offsets are passed through: a bad element names its own.
        let text = #"[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]},{"candidates":{"x":1}}]"#
        let result = Self.decode(text)
        let error = result.error as? StreamError
        #expect(error?.kind == .malformed && error?.field == "candidates")
        #expect(error?.byteOffset == Array(text.utf8).lastIndex(of: UInt8(ascii: ",")).map { $0 + 1 })
    }

    @Test(arguments: [
        ("MAX_TOKENS", StreamFinishReason.length), ("SAFETY", .contentFilter), ("MALFORMED_FUNCTION_CALL", .other),
    ])
    func finishReasonsNormalise(_ raw: String, _ reason: StreamFinishReason) {
        let result = Self.decode(#"[{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"\#(raw)"}]}]"#)
        #expect(result.events.suffix(3) == [.textEnd(id: "text-0"), .finish(reason: reason, rawReason: raw), .done])
    }

    @Test func errorElementIsAnErrorEventNotATruncation() {
        let result = Self.decode(
            #"[{"candidates":[{"content":{"parts":[{"text":"x"}]}}]},{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}]"#
        )
        #expect(result.error == nil)
        #expect(
            result.events.contains(.error(StreamErrorInfo(code: "RESOURCE_EXHAUSTED", message: "Resource exhausted"))))
        #expect(!result.events.contains(.done))
    }

    @Test func arrayWithoutFinishReasonIsTruncated() throws {
        let result = Self.decode(#"[{"candidates":[{"content":{"parts":[{"text":"x"}]}}]}]"#)
        #expect((result.error as? StreamError)?.kind == .truncated)
        #expect(result.events.last == .textEnd(id: "text-0"))
    }

    @Test func blockedPromptFinishesWithContentFilter() {
        let result = Self.decode(
            #"[{"promptFeedback":{"blockReason":"OTHER"},"usageMetadata":{"promptTokenCount":4}}]"#)
        #expect(result.error == nil)
        #expect(result.events.suffix(2) == [.finish(reason: .contentFilter, rawReason: "OTHER"), .done])
    }

    @Test func functionCallIdsAndUnknownParts() {
        let result = Self.decode(
            #"[{"candidates":[{"content":{"parts":[{"functionCall":{"id":"fc-9","name":"f"}},{"executableCode":{"code":"1"}}]},"finishReason":"STOP"}]}]"#
        )
        #expect(result.unknownUnitCount == 1)
        #expect(result.events.contains(.toolInputAvailable(id: "fc-9", name: "f", input: [:])))
        let bad = Self.decode(#"[{"candidates":[{"content":{"parts":[{"functionCall":{"args":{}}}]}}]}]"#)
        #expect((bad.error as? StreamError)?.kind == .malformed)
    }
}
