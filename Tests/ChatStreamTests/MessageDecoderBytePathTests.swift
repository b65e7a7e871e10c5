// MessageDecoder over OpenAI Responses, the AI SDK v4 data stream, Ollama and Gemini: its
// messages must equal StreamDecoder + MessageAssembler event by event at every chunking. (Until
// issue 17 each dialect had a byte path and an event path, and this file also proved their events
// equal; with one path per dialect that comparison is gone.)
// Inputs: the Responses captures in ../shared/captures (with and without `event:` lines), the
// dialect tests' hand-written streams (no v4, Ollama or Gemini captures exist), and streams
// written here for the corners: empty deltas, parts that move, a text delta into a reasoning item,
// escapes and lone surrogates, bad deltas mid-stream (strict and lenient), truncation.

import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// The events and error of `pieces` through `StreamDecoder.feed(_:into:)`, each text
/// delta turned back into a `.textDelta` event where it came; `handed` counts those deltas.
private func bytePathEvents<Dialect: StreamDialect>(
    _ dialect: Dialect.Type, _ pieces: [[UInt8]], configuration: StreamDecoderConfiguration = .init()
) -> (events: [StreamEvent], handed: Int, failure: StreamError?) {
    var decoder = StreamDecoder<Dialect>(configuration: configuration)
    var events: [StreamEvent] = []
    var handed = 0
    do {
        for piece in pieces {
            try piece.withUnsafeBytes { raw in
                var sink = RecordingSink()
                defer {
                    handed += sink.deltas.count
                    events += sink.all
                }
                try decoder.feed(raw, into: &sink)
            }
        }
        try decoder.finish(into: &events)
    } catch {
        return (events, handed, StreamError(converting: error))
    }
    return (events, handed, nil)
}

/// Expects MessageDecoder to give the event-by-event messages and error at every chunking (the
/// comparison left now that a dialect has one path: the assembling sink gathers a part's run of
/// deltas into one `String`, the assembler appends them one by one). Returns how many text deltas
/// the stream carries.
@discardableResult
private func expectBytePathMatches<Dialect: StreamDialect>(
    _ dialect: Dialect.Type, _ input: [UInt8], _ label: String, configuration: StreamDecoderConfiguration = .init(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> Int {
    let expected = OpenAICaptures.run(dialect, [input], configuration: configuration)
    let textDeltas = expected.events.count { if case .textDelta = $0 { true } else { false } }
    expectSameAsEventByEvent(dialect, input, label, configuration: configuration, sourceLocation: sourceLocation)
    return textDeltas
}

private func sse(_ payloads: [String]) -> [UInt8] { OpenAICaptures.sse(payloads, eventLines: true) }

private func lines(_ lines: [String]) -> [UInt8] { Array(lines.map { $0 + "\n" }.joined().utf8) }

private let lenient = StreamDecoderConfiguration(lenient: true)

@Suite(.blockingAllowed) struct MessageDecoderBytePathTests {
    // MARK: - OpenAI Responses

    @Test(arguments: OpenAIResponsesDialectTests.captures)
    func responsesCaptureMessagesMatchEventByEvent(_ name: String) throws {
        let payloads = try OpenAICaptures.lines("vercel-ai-provider-chunks/jsonl/\(name).jsonl")
        expectBytePathMatches(OpenAIResponsesDialect.self, sse(payloads), name)
        let derived = try OpenAICaptures.bytes("vercel-ai-provider-chunks/sse-derived/\(name).sse")
        expectBytePathMatches(OpenAIResponsesDialect.self, derived, name + " (sse-derived)")
        // The one capture with malformed lines decodes further when lenient.
        expectBytePathMatches(OpenAIResponsesDialect.self, derived, name + " (lenient)", configuration: lenient)
    }

    @Test func responsesCapturesCarryText() throws {
        var withText = 0
        for name in OpenAIResponsesDialectTests.captures {
            let payloads = try OpenAICaptures.lines("vercel-ai-provider-chunks/jsonl/\(name).jsonl")
            let result = bytePathEvents(OpenAIResponsesDialect.self, [sse(payloads)])
            if result.handed > 0 { withText += 1 }
        }
        #expect(OpenAIResponsesDialectTests.captures.count == 6)
        #expect(withText >= 3)
    }

    static let responsesCorners = [
        #"{"type":"response.created","response":{"id":"resp_1"}}"#,
        #"{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning"}}"#,
        #"{"type":"response.reasoning_summary_part.added","output_index":0,"summary_index":0}"#,
        #"{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"think"}"#,
        // Text into the reasoning item: the event path calls it a text delta of part "rs_1".
        #"{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"odd"}"#,
        #"{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message"}}"#,
        #"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"Hel"}"#,
        #"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":""}"#,
        #"{"type":"response.output_text.delta","output_index":1,"content_index":1,"delta":"part two \u00e9"}"#,
        #"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"lo"}"#,
        #"{"type":"response.output_text.delta","item_id":"msg_1","content_index":0,"delta":" by item id"}"#,
        #"{"type":"response.refusal.delta","output_index":1,"content_index":2,"delta":"no"}"#,
        #"{"type":"response.output_text.delta","output_index":1,"content_index":3,"delta":""}"#,
        #"{"type":"response.output_text.delta","item_id":"msg_2","output_index":2,"delta":"\ud83d\ude00 \"q\"\n\ud800"}"#,
        #"{"type":"response.output_item.added","output_index":3,"item":{"id":"fc_1","type":"function_call","call_id":"c1","name":"f"}}"#,
        #"{"type":"response.function_call_arguments.delta","output_index":3,"delta":"{\"a\":1}"}"#,
        #"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"after the call"}"#,
        #"{"type":"response.output_text.done","output_index":1,"content_index":0}"#,
        #"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"reopened"}"#,
        #"{"type":"response.completed","response":{"id":"resp_1","usage":{"input_tokens":3}}}"#,
        #"{"type":"response.created","response":{"id":"resp_2"}}"#,
        #"{"type":"response.output_text.delta","item_id":"msg_9","output_index":0,"delta":"second response"}"#,
        #"{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"}}}"#,
    ]

    @Test func responsesPartsThatMoveMessagesMatchEventByEvent() {
        let input = sse(Self.responsesCorners)
        #expect(expectBytePathMatches(OpenAIResponsesDialect.self, input, "corners") == 9)
        // The second response goes on in the same message (the assembler keeps one per choice).
        let text = throughMessageDecoder(OpenAIResponsesDialect.self, [input]).messages.first?.text ?? ""
        #expect(text.hasPrefix("odd"))
        #expect(text.contains("part two é"))
        #expect(text.contains("😀 \"q\"\n\u{FFFD}"))
        #expect(text.hasSuffix("reopenedsecond response"))
    }

    @Test func responsesTextStartComesBeforeTheFirstDeltaAndPartIDsNameTheContentIndex() {
        let input = sse([
            #"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"a"}"#,
            #"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":1,"delta":""}"#,
            #"{"type":"response.output_text.delta","item_id":"x","output_index":0,"content_index":1,"delta":"b"}"#,
            #"{"type":"response.completed","response":{}}"#,
        ])
        let result = bytePathEvents(OpenAIResponsesDialect.self, [input])
        #expect(result.failure == nil)
        #expect(result.handed == 2)
        #expect(
            result.events == [
                .messageStart(id: nil), .textStart(id: "msg_1"), .textDelta(id: "msg_1", delta: "a"),
                .textStart(id: "msg_1:1"), .textDelta(id: "msg_1:1", delta: "b"), .textEnd(id: "msg_1"),
                .textEnd(id: "msg_1:1"), .finish(reason: .stop, rawReason: "completed"), .done,
            ])
    }

    @Test func responsesBadDeltaStopsDecodingOrIsSkippedWhenLenient() {
        for bad in [#""delta":5"#, #""delta":null"#, #""nodelta":"x""#] {
            let input = sse([
                #"{"type":"response.output_text.delta","output_index":0,"delta":"kept"}"#,
                #"{"type":"response.output_text.delta","output_index":0,\#(bad)}"#,
                #"{"type":"response.output_text.delta","output_index":0,"delta":" after"}"#,
                #"{"type":"response.completed","response":{}}"#,
            ])
            expectBytePathMatches(OpenAIResponsesDialect.self, input, bad)
            expectBytePathMatches(OpenAIResponsesDialect.self, input, bad + " lenient", configuration: lenient)
            #expect(throughMessageDecoder(OpenAIResponsesDialect.self, [input]).failure?.field == "delta")
            #expect(
                throughMessageDecoder(OpenAIResponsesDialect.self, [input], configuration: lenient).messages[0].text
                    == "kept after")
        }
        // Cut before the end: the text so far, and truncated.
        let cut = sse(Array(Self.responsesCorners.prefix(12)))
        expectBytePathMatches(OpenAIResponsesDialect.self, cut, "truncated")
        #expect(throughMessageDecoder(OpenAIResponsesDialect.self, [cut]).failure?.kind == .truncated)
    }

    // MARK: - AI SDK v4

    static let v4Corners = [
        #"f:{"messageId":"m1"}"#, #"0:"""#, #"0:"a""#, #"0:"b""#, #"g:"think""#, #"0:"c""#, #"g:"""#,
        #"0:"\u00e9 \ud83d\ude00 \"q\"\n\ud800""#, #"b:{"toolCallId":"t1","toolName":"f"}"#,
        #"c:{"toolCallId":"t1","argsTextDelta":"{}"}"#, #"0:"after the call""#, #"z:{"unknown":1}"#,
        #"2:[1]"#, #"0:"after data""#, #"e:{"finishReason":"stop"}"#, #"f:{"messageId":"m1"}"#,
        #"0:"step two""#, #"3:"an error""#, #"0:"after the error""#, #"d:{"finishReason":"stop"}"#,
    ]

    @Test func v4StreamsMessagesMatchEventByEvent() {
        let handWritten = Array(DataStreamV4DialectTests.stream.utf8)
        #expect(expectBytePathMatches(DataStreamV4Dialect.self, handWritten, "v4 stream") == 3)
        let corners = lines(Self.v4Corners)
        #expect(expectBytePathMatches(DataStreamV4Dialect.self, corners, "v4 corners") == 8)
        #expect(
            throughMessageDecoder(DataStreamV4Dialect.self, [corners]).messages[0].text
                == "abcé 😀 \"q\"\n\u{FFFD}after the callafter datastep twoafter the error")
        let result = bytePathEvents(DataStreamV4Dialect.self, [lines(Array(Self.v4Corners.prefix(6)))])
        #expect(
            Array(result.events.dropFirst(2).prefix(8)) == [
                .textStart(id: "text-0"), .textDelta(id: "text-0", delta: "a"), .textDelta(id: "text-0", delta: "b"),
                .textEnd(id: "text-0"), .reasoningStart(id: "reasoning-1"),
                .reasoningDelta(id: "reasoning-1", delta: "think"), .reasoningEnd(id: "reasoning-1"),
                .textStart(id: "text-2"),
            ])
    }

    @Test func v4TextThatIsNotAStringStopsDecodingOrIsSkippedWhenLenient() {
        for bad in [#"0:5"#, #"0:{"text":"x"}"#, #"0:null"#] {
            let input = lines([#"0:"kept""#, bad, #"0:" after""#, #"d:{"finishReason":"stop"}"#])
            expectBytePathMatches(DataStreamV4Dialect.self, input, bad)
            expectBytePathMatches(DataStreamV4Dialect.self, input, bad + " lenient", configuration: lenient)
            let strict = throughMessageDecoder(DataStreamV4Dialect.self, [input])
            #expect(strict.failure?.kind == .malformed && strict.failure?.eventType == "0:")
            #expect(
                throughMessageDecoder(DataStreamV4Dialect.self, [input], configuration: lenient).messages[0].text
                    == "kept after")
        }
        let cut = lines(Array(Self.v4Corners.prefix(6)))
        expectBytePathMatches(DataStreamV4Dialect.self, cut, "truncated")
        #expect(throughMessageDecoder(DataStreamV4Dialect.self, [cut]).failure?.kind == .truncated)
    }

    // MARK: - Ollama

    static let ollamaCorners = [
        #"{"message":{"role":"assistant","content":"","thinking":"hmm"},"done":false}"#,
        #"{"message":{"role":"assistant","content":"both","thinking":" more"},"done":false}"#,
        #"{"message":{"role":"assistant","content":5},"done":false}"#,
        #"{"message":{"role":"assistant","content":"\u00e9 \ud83d\ude00 \"q\"\n\ud800"},"done":false}"#,
        #"{"message":{"role":"assistant","content":"then a call","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":false}"#,
        #"{"message":"not an object","done":false}"#,
        #"{"message":{"role":"assistant","content":"after"},"done":false}"#,
        #"{"message":{"role":"assistant","content":" the end"},"done":true,"done_reason":"stop","eval_count":3}"#,
    ]

    @Test func ollamaStreamsMessagesMatchEventByEvent() {
        let conversation = Array(OllamaDialectTests.conversation.utf8)
        #expect(expectBytePathMatches(OllamaDialect.self, conversation, "ollama conversation") == 2)
        let corners = lines(Self.ollamaCorners)
        #expect(expectBytePathMatches(OllamaDialect.self, corners, "ollama corners") == 5)
        #expect(
            throughMessageDecoder(OllamaDialect.self, [corners]).messages[0].text
                == "bothé 😀 \"q\"\n\u{FFFD}then a callafter the end")
        let result = bytePathEvents(OllamaDialect.self, [lines(Array(Self.ollamaCorners.prefix(2)))])
        #expect(
            result.events == [
                .messageStart(id: nil), .reasoningStart(id: "reasoning-0"),
                .reasoningDelta(id: "reasoning-0", delta: "hmm"), .reasoningDelta(id: "reasoning-0", delta: " more"),
                .reasoningEnd(id: "reasoning-0"), .textStart(id: "text-1"), .textDelta(id: "text-1", delta: "both"),
                .textEnd(id: "text-1"),
            ])
        #expect(result.failure?.kind == .truncated)
    }

    @Test func ollamaBadLinesStopDecodingOrAreSkippedWhenLenient() {
        for bad in [#"{"message":{"content":"x"}}"#, #"{"message":{"content":"x\q"},"done":false}"#, "[1]"] {
            let input = lines([
                #"{"message":{"content":"kept"},"done":false}"#, bad,
                #"{"message":{"content":" after"},"done":true}"#,
            ])
            expectBytePathMatches(OllamaDialect.self, input, bad)
            expectBytePathMatches(OllamaDialect.self, input, bad + " lenient", configuration: lenient)
            #expect(throughMessageDecoder(OllamaDialect.self, [input]).failure?.kind == .malformed)
            #expect(
                throughMessageDecoder(OllamaDialect.self, [input], configuration: lenient).messages[0].text
                    == "kept after")
        }
        let failed = lines([
            #"{"message":{"content":"before "},"done":false}"#, #"{"error":"model crashed"}"#,
        ])
        expectBytePathMatches(OllamaDialect.self, failed, "error line")
        #expect(throughMessageDecoder(OllamaDialect.self, [failed]).messages[0].error?.message == "model crashed")
    }

    // MARK: - Gemini

    static let geminiCorners = """
        [{"candidates":[{"content":{"parts":[{"text":"a"},{"text":""},{"text":"b"},{"text":"r","thought":true},{"text":"","thought":true},{"text":"c"}]}}],"responseId":"g1"}
        ,{"candidates":[{"content":{"parts":[{"text":5},{"text":"\\u00e9 \\ud83d\\ude00 \\"q\\"\\n\\ud800"},{"functionCall":{"name":"f","args":{}}},{"text":"after the call"}]}}]}
        ,{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}},{"text":"after the file"}]}}],"usageMetadata":{"promptTokenCount":2}}
        ,{"candidates":[{"content":{"parts":[{"text":" the end"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":2}}
        ]
        """

    @Test func geminiStreamsMessagesMatchEventByEvent() {
        #expect(expectBytePathMatches(GeminiDialect.self, Array(GeminiDialectTests.stream.utf8), "gemini stream") == 3)
        let corners = Array(Self.geminiCorners.utf8)
        #expect(expectBytePathMatches(GeminiDialect.self, corners, "gemini corners") == 7)
        #expect(
            throughMessageDecoder(GeminiDialect.self, [corners]).messages[0].text
                == "abcé 😀 \"q\"\n\u{FFFD}after the callafter the file the end")
        let first = String(Self.geminiCorners.split(separator: "\n")[0]) + "]"
        let result = bytePathEvents(GeminiDialect.self, [Array(first.utf8)])
        #expect(
            result.events == [
                .messageStart(id: "g1"), .textStart(id: "text-0"), .textDelta(id: "text-0", delta: "a"),
                .textDelta(id: "text-0", delta: "b"), .textEnd(id: "text-0"), .reasoningStart(id: "reasoning-1"),
                .reasoningDelta(id: "reasoning-1", delta: "r"), .reasoningEnd(id: "reasoning-1"),
                .textStart(id: "text-2"), .textDelta(id: "text-2", delta: "c"), .textEnd(id: "text-2"),
            ])
        #expect(result.failure?.kind == .truncated)
    }

    @Test func geminiBadElementsStopDecodingOrAreSkippedWhenLenient() {
        for bad in [#"{"candidates":{"x":1}}"#, #"{"candidates":[{"content":{"parts":[{"text":"x\q"}]}}]}"#, "7"] {
            let input = Array(
                """
                [{"candidates":[{"content":{"parts":[{"text":"kept"}]}}]},\(bad),
                {"candidates":[{"content":{"parts":[{"text":" after"}]},"finishReason":"STOP"}]}]
                """.utf8)
            expectBytePathMatches(GeminiDialect.self, input, bad)
            expectBytePathMatches(GeminiDialect.self, input, bad + " lenient", configuration: lenient)
            #expect(throughMessageDecoder(GeminiDialect.self, [input]).failure?.kind == .malformed)
            #expect(
                throughMessageDecoder(GeminiDialect.self, [input], configuration: lenient).messages[0].text
                    == "kept after")
        }
        let failed = Array(
            #"[{"candidates":[{"content":{"parts":[{"text":"before"}]}}]},{"error":{"code":500,"message":"boom"}}]"#
                .utf8)
        expectBytePathMatches(GeminiDialect.self, failed, "error element")
    }
}
