// DataStreamV4Dialect on hand-written streams (no v4 captures exist), framed with HandFraming.

import ChatStream
import TestSupport
import Testing

@Suite(.blockingAllowed) struct DataStreamV4DialectTests {
    static let stream = """
        f:{"messageId":"msg-123"}
        g:"Let me check"
        g:" the weather."
        0:"Checking "
        0:"Paris…"
        b:{"toolCallId":"call-1","toolName":"getWeather"}
        c:{"toolCallId":"call-1","argsTextDelta":"{\\"city\\":"}
        c:{"toolCallId":"call-1","argsTextDelta":"\\"Paris\\"}"}
        9:{"toolCallId":"call-1","toolName":"getWeather","args":{"city":"Paris"}}
        a:{"toolCallId":"call-1","result":{"tempC":21}}
        e:{"finishReason":"tool-calls","usage":{"promptTokens":10,"completionTokens":20},"isContinued":false}
        f:{"messageId":"msg-123"}
        9:{"toolCallId":"call-2","toolName":"now","args":{}}
        0:"It is 21 °C."
        2:[{"progress":1},"two"]
        e:{"finishReason":"stop","usage":{"promptTokens":30,"completionTokens":5},"isContinued":false}
        d:{"finishReason":"stop","usage":{"promptTokens":40,"completionTokens":25}}

        """

    static func decode(_ text: String) -> HandResult {
        HandFraming.run(DataStreamV4Dialect.self, HandFraming.lines(Array(text.utf8), codes: true))
    }

    @Test func fullStreamExactEvents() {
        let result = Self.decode(Self.stream)
        #expect(result.error == nil)
        #expect(
            result.events == [
                .messageStart(id: "msg-123"), .stepStart,
                .reasoningStart(id: "reasoning-0"), .reasoningDelta(id: "reasoning-0", delta: "Let me check"),
                .reasoningDelta(id: "reasoning-0", delta: " the weather."), .reasoningEnd(id: "reasoning-0"),
                .textStart(id: "text-1"), .textDelta(id: "text-1", delta: "Checking "),
                .textDelta(id: "text-1", delta: "Paris…"), .textEnd(id: "text-1"),
                .toolCallStart(id: "call-1", name: "getWeather", providerExecuted: false),
                .toolInputDelta(id: "call-1", delta: #"{"city":"#), .toolInputDelta(id: "call-1", delta: #""Paris"}"#),
                .toolInputAvailable(id: "call-1", name: "getWeather", input: ["city": "Paris"]),
                .toolResult(id: "call-1", name: "getWeather", output: ["tempC": 21], preliminary: false),
                .metadata(StreamMetadata(usage: ["promptTokens": 10, "completionTokens": 20])), .stepFinish,
                .stepStart,
                .toolCallStart(id: "call-2", name: "now", providerExecuted: false),
                .toolInputDelta(id: "call-2", delta: "{}"), .toolInputAvailable(id: "call-2", name: "now", input: [:]),
                .textStart(id: "text-2"), .textDelta(id: "text-2", delta: "It is 21 °C."),
                .data(name: "data", id: nil, data: ["progress": 1], transient: false),
                .data(name: "data", id: nil, data: "two", transient: false),
                .textEnd(id: "text-2"),
                .metadata(StreamMetadata(usage: ["promptTokens": 30, "completionTokens": 5])), .stepFinish,
                .metadata(StreamMetadata(usage: ["promptTokens": 40, "completionTokens": 25])),
                .finish(reason: .stop, rawReason: "stop"), .done,
            ])
        expectWellFormed(result.events)
    }

    @Test func sameEventsHoweverTheBytesAreCut() {
        let bytes = Array(Self.stream.utf8)
        let whole = Self.decode(Self.stream)
        for chunking in Chunkings.all(of: bytes) {
            let cut = HandFraming.run(DataStreamV4Dialect.self, HandFraming.lines(chunking.pieces, codes: true))
            #expect(cut.events == whole.events, "\(chunking)")
        }
    }

    @Test func errorPartIsAnErrorEventAndTheStreamMayEndThere() {
        let result = Self.decode("f:{\"messageId\":\"m\"}\n0:\"Hel\"\n3:\"Rate limit reached\"\n")
        #expect(result.error == nil)
        #expect(
            result.events.suffix(2) == [.error(StreamErrorInfo(message: "Rate limit reached")), .textEnd(id: "text-0")])
    }

    @Test func streamWithoutFinishMessageIsTruncated() throws {
        let result = Self.decode("f:{\"messageId\":\"m\"}\n0:\"Hel\"\ne:{\"finishReason\":\"stop\"}\n")
        let error = try #require(result.error as? StreamError)
        #expect(error.kind == .truncated)
        #expect(result.events.last == .stepFinish)
    }

    @Test func malformedPartsNameCodeFieldAndOffset() throws {
        let prefix = "0:\"a\"\n"
        let missing = Self.decode(prefix + "b:{\"toolName\":\"x\"}\n")
        let error = try #require(missing.error as? StreamError)
        #expect(error.kind == .malformed && error.field == "toolCallId" && error.eventType == "b:")
        #expect(error.byteOffset == prefix.utf8.count)
        let notString = Self.decode("0:{\"text\":\"a\"}\n")
        #expect((notString.error as? StreamError)?.kind == .malformed)
        #expect((notString.error as? StreamError)?.eventType == "0:")
        let orphanDelta = Self.decode("c:{\"toolCallId\":\"zz\",\"argsTextDelta\":\"{\"}\n")
        #expect((orphanDelta.error as? StreamError)?.message.contains("zz") == true)
        let badJSON = Self.decode("0:\"unterminated\n")
        #expect((badJSON.error as? StreamError)?.kind == .malformed)
        #expect((badJSON.error as? StreamError)?.eventType == "0:")
        let badReasoning = Self.decode("g:[1]\n")
        #expect((badReasoning.error as? StreamError)?.eventType == "g:")
    }

    @Test func unknownCodesAreSkippedAndCounted() {
        let result = Self.decode("x:{}\nzz:1\n0:\"ok\"\nd:{\"finishReason\":\"length\"}\n")
        #expect(result.error == nil)
        #expect(result.unknownUnitCount == 2)
        #expect(result.events.contains(.finish(reason: .length, rawReason: "length")))
    }

    @Test func sourcesFilesAndAnnotations() {
        let result = Self.decode(
            """
            h:{"sourceType":"url","id":"s1","url":"https://example.com","title":"Ex"}
            k:{"data":"aGk=","mimeType":"text/plain"}
            8:[{"score":0.9}]
            d:{"finishReason":"stop"}
            """)
        #expect(
            result.events == [
                .source(StreamSource(id: "s1", url: "https://example.com", title: "Ex")),
                .file(url: "data:text/plain;base64,aGk=", mediaType: "text/plain"),
                .metadata(StreamMetadata(raw: [["score": 0.9]])),
                .finish(reason: .stop, rawReason: "stop"), .done,
            ])
    }
}
