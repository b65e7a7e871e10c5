// Tests for OpenAIResponsesDialect, over the recorded Responses captures in ../shared/captures.
//
// The captures store payloads only; the tests send them as the API does (`event: <type>` +
// `data:`), and also without event lines as the SSE-derived copies have them. The oracle reads
// the payloads with Foundation: text deltas, reasoning summary deltas, function call items.

import ChatStream
import Foundation
import TestSupport
import Testing

/// What a Responses capture holds, read with Foundation.
struct ResponsesOracle {
    struct Call {
        var callID: String
        var name: String
        var arguments: String
    }
    var responseIDs: [String] = []
    var text = ""
    var reasoning = ""
    var calls: [Call] = []
    var usages: [Any] = []
    var errorCodes: [String] = []
    var urls: [String] = []
    var completed = 0

    init(_ payloads: [String]) {
        for payload in payloads {
            guard let event = OpenAICaptures.object(payload), let type = event["type"] as? String else { continue }
            let response = event["response"] as? [String: Any]
            switch type {
            case "response.created": responseIDs.append(response?["id"] as? String ?? "")
            case "response.output_text.delta": text += event["delta"] as? String ?? ""
            case "response.reasoning_summary_text.delta": reasoning += event["delta"] as? String ?? ""
            case "response.output_item.done":
                let item = event["item"] as? [String: Any] ?? [:]
                if item["type"] as? String == "function_call" {
                    calls.append(
                        Call(
                            callID: item["call_id"] as! String, name: item["name"] as! String,
                            arguments: item["arguments"] as! String))
                }
            case "response.output_text.annotation.added":
                if let url = (event["annotation"] as? [String: Any])?["url"] as? String { urls.append(url) }
            case "error":
                errorCodes.append((event["error"] as? [String: Any])?["code"] as? String ?? "")
            case "response.completed", "response.failed", "response.incomplete":
                completed += 1
                if let usage = response?["usage"] as? [String: Any] { usages.append(usage) }
            default: break
            }
        }
    }

    func check(_ transcript: Transcript, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(transcript.problems == [], sourceLocation: sourceLocation)
        #expect(transcript.messageStarts == responseIDs.map { Optional($0) }, sourceLocation: sourceLocation)
        #expect(transcript.doneCount == completed, sourceLocation: sourceLocation)
        let choice = transcript.choices[0] ?? Transcript.Choice()
        #expect(choice.text == text, sourceLocation: sourceLocation)
        #expect(choice.reasoning == reasoning, sourceLocation: sourceLocation)
        let functionCalls = choice.toolCalls.filter { !$0.providerExecuted }
        #expect(functionCalls.map(\.id) == calls.map(\.callID), sourceLocation: sourceLocation)
        #expect(functionCalls.map(\.name) == calls.map(\.name), sourceLocation: sourceLocation)
        for (call, oracle) in zip(functionCalls, calls) {
            #expect(call.inputText == oracle.arguments, sourceLocation: sourceLocation)
            #expect(
                OpenAICaptures.sameJSON(call.input, OpenAICaptures.parseJSON(oracle.arguments)),
                sourceLocation: sourceLocation)
        }
        #expect(transcript.usages.count == usages.count, sourceLocation: sourceLocation)
        for (mine, theirs) in zip(transcript.usages, usages) {
            #expect(OpenAICaptures.sameJSON(mine, theirs), sourceLocation: sourceLocation)
        }
        #expect(transcript.errors.map(\.code) == errorCodes.map { Optional($0) }, sourceLocation: sourceLocation)
        #expect(transcript.sources.map(\.url) == urls.map { Optional($0) }, sourceLocation: sourceLocation)
        #expect(choice.finishes.count == completed, sourceLocation: sourceLocation)
    }
}

@Suite("OpenAI Responses dialect", .blockingAllowed)
struct OpenAIResponsesDialectTests {
    static let captures = [
        "openai__github-copilot-id-rotation.1", "openai__openai-compaction.1", "openai__openai-error.1",
        "openai__openai-reasoning-encrypted-content.1", "openai__openai-web-search-tool.1", "azure__azure-tool-call.1",
    ]

    func decode(_ input: [UInt8]) -> (events: [StreamEvent], error: StreamError?, unknown: Int) {
        OpenAICaptures.run(OpenAIResponsesDialect.self, [input])
    }

    func lines(_ name: String) throws -> [String] {
        try OpenAICaptures.lines("vercel-ai-provider-chunks/jsonl/\(name).jsonl")
    }

    @Test("Responses captures decode to what they hold, with or without event lines", arguments: captures)
    func capture(_ name: String) throws {
        let payloads = try lines(name)
        let input = OpenAICaptures.sse(payloads, eventLines: true)
        let result = decode(input)
        #expect(result.error == nil)
        #expect(result.events.last == .done)
        ResponsesOracle(payloads).check(Transcript(result.events))
        let derived = try OpenAICaptures.bytes("vercel-ai-provider-chunks/sse-derived/\(name).sse")
        #expect(decode(derived).events == result.events)
        // The AI SDK's harness appends [DONE]: ignored after the end.
        #expect(decode(derived + Array("data: [DONE]\n\n".utf8)).events == result.events)
        for chunking in Chunkings.all(of: input, seeds: [5]) where chunking.name != "whole" && chunking.name != "bytes"
        {
            #expect(
                OpenAICaptures.run(OpenAIResponsesDialect.self, chunking.pieces).events == result.events, "\(chunking)")
        }
    }

    @Test("rotating item ids stay one text part and one reasoning part")
    func idRotation() throws {
        let result = decode(OpenAICaptures.sse(try lines("openai__github-copilot-id-rotation.1")))
        let transcript = Transcript(result.events)
        #expect(transcript.choices[0]?.textParts == ["capture-id-9"])
        #expect(transcript.choices[0]?.reasoningParts == ["capture-id-3"])
        #expect(transcript.choices[0]?.text.contains("“strawberry.”") == true)
        #expect(transcript.messageStarts == ["capture-id-1"])
        #expect(transcript.choices[0]?.finishes.map(\.0) == [.stop])
    }

    @Test("an error event then response.failed: one error with its code, finish error, done")
    func errorCapture() throws {
        let result = decode(OpenAICaptures.sse(try lines("openai__openai-error.1")))
        #expect(result.error == nil)
        let transcript = Transcript(result.events)
        #expect(transcript.errors.count == 1)
        #expect(transcript.errors.first?.code == "insufficient_quota")
        #expect(transcript.errors.first?.message.hasPrefix("You exceeded your current quota") == true)
        #expect(transcript.choices[0]?.finishes.map(\.0) == [.error])
        #expect(result.events.last == .done)
    }

    @Test("function calls finish with tool-calls; four responses in a row are four messages")
    func toolCalls() throws {
        let transcript = Transcript(
            decode(OpenAICaptures.sse(try lines("openai__openai-reasoning-encrypted-content.1"))).events)
        let calls = try #require(transcript.choices[0]?.toolCalls)
        #expect(calls.map(\.name) == ["calculator", "calculator", "calculator"])
        #expect(calls.first?.input?["op"]?.stringValue == "add")
        #expect(transcript.choices[0]?.finishes.map(\.0) == [.toolCalls, .toolCalls, .toolCalls, .stop])
        #expect(transcript.messageStarts.count == 4)

        let azure = Transcript(decode(OpenAICaptures.sse(try lines("azure__azure-tool-call.1"))).events)
        #expect(azure.choices[0]?.toolCalls.count == 1)
        #expect(azure.choices[0]?.toolCalls.first?.input != nil)
        #expect(azure.choices[0]?.finishes.map(\.0) == [.toolCalls])
    }

    @Test("web search: provider-executed calls with results, and url citations as sources")
    func webSearch() throws {
        let transcript = Transcript(decode(OpenAICaptures.sse(try lines("openai__openai-web-search-tool.1"))).events)
        let calls = try #require(transcript.choices[0]?.toolCalls)
        let searches = calls.filter { $0.providerExecuted }
        #expect(searches.count == 6)
        #expect(searches.allSatisfy { $0.name == "web_search" && $0.result != nil && $0.input != nil })
        #expect(transcript.sources.count == 12)
        #expect(transcript.sources.first?.title?.contains("Petco") == true)
    }

    @Test("the parallel tool call capture's first and last lines are not JSON: malformed, or skipped when lenient")
    func malformedCapture() throws {
        let payloads = try lines("openai__parallel-tool-call-wrapper.1")
        let input = OpenAICaptures.sse(payloads)
        let strict = decode(input)
        let error = try #require(strict.error)
        #expect(error.kind == .malformed)
        let offset = try #require(error.byteOffset)
        #expect(offset >= 0 && offset <= OpenAICaptures.sse(Array(payloads.prefix(1))).count)
        #expect(strict.events.isEmpty)

        // Lenient (the glue skips malformed units): the call decodes; the end never came.
        let lenient = OpenAICaptures.run(
            OpenAIResponsesDialect.self, [input], configuration: StreamDecoderConfiguration(lenient: true))
        #expect(lenient.error?.kind == .truncated)
        let call = try #require(Transcript(lenient.events).choices[0]?.toolCalls.first)
        #expect(call.id == "call_parallel")
        #expect(call.name == "parallel")
        #expect(call.input?["tool_uses"]?[1]?["parameters"]?["city"]?.stringValue == "Rome")
        #expect(!lenient.events.contains(.done))
    }

    @Test("truncation: drop response.completed and the text part is ended, then finish throws truncated")
    func truncation() throws {
        let payloads = try lines("openai__github-copilot-id-rotation.1")
        let full = decode(OpenAICaptures.sse(payloads))
        let result = decode(OpenAICaptures.sse(Array(payloads.dropLast())))
        #expect(result.error?.kind == .truncated)
        #expect(result.error?.byteOffset != nil)
        let transcript = Transcript(result.events)
        #expect(transcript.problems == [])
        #expect(transcript.doneCount == 0)
        #expect(transcript.choices[0]?.text == Transcript(full.events).choices[0]?.text)
        #expect(result.events.last == .textEnd(id: "capture-id-9"))
    }

    @Test("incomplete maps max_output_tokens to length; unknown types are counted; bad fields are malformed")
    func synthetic() throws {
        let events = [
            #"{"type":"response.created","response":{"id":"resp_1"}}"#,
            #"{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message"}}"#,
            #"{"type":"response.output_text.delta","item_id":"a","output_index":0,"content_index":0,"delta":"Hel"}"#,
            #"{"type":"response.output_text.delta","item_id":"b","output_index":0,"content_index":0,"delta":"lo"}"#,
            #"{"type":"response.refusal.delta","item_id":"msg_1","output_index":0,"content_index":1,"delta":"No."}"#,
            #"{"type":"response.something_new","x":1}"#,
            #"{"type":"response.incomplete","response":{"id":"resp_1","incomplete_details":{"reason":"max_output_tokens"}}}"#,
        ]
        let result = decode(OpenAICaptures.sse(events))
        #expect(result.error == nil)
        #expect(result.unknown == 1)
        #expect(
            result.events == [
                .messageStart(id: "resp_1"), .textStart(id: "msg_1"), .textDelta(id: "msg_1", delta: "Hel"),
                .textDelta(id: "msg_1", delta: "lo"), .refusalDelta(id: "msg_1:1", delta: "No."), .textEnd(id: "msg_1"),
                .finish(reason: .length, rawReason: "max_output_tokens"), .done,
            ])

        let missingDelta = decode(OpenAICaptures.sse([#"{"type":"response.output_text.delta","output_index":0}"#]))
        #expect(missingDelta.error?.kind == .malformed)
        #expect(missingDelta.error?.field == "delta")
        #expect(missingDelta.error?.eventType == "response.output_text.delta")
        #expect(missingDelta.error?.byteOffset == 6)  // the data after "data: "
        let noType = decode(OpenAICaptures.sse([#"{"delta":"x"}"#, #"{"type":"error"}"#]))
        #expect(noType.error?.field == "type")
        let notJSON = decode(Array("data: {\"type\":\"response.created\"}\n\ndata: {nope\n\n".utf8))
        #expect(notJSON.error?.kind == .malformed)
        #expect(notJSON.events == [.messageStart(id: nil)])
    }

    @Test("parts above index 0 keep the ID they opened with through their deltas and their end")
    func partsAboveIndexZeroKeepTheirIDs() {
        let events = [
            #"{"type":"response.created","response":{"id":"resp_1"}}"#,
            #"{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning"}}"#,
            #"{"type":"response.reasoning_summary_part.added","output_index":0,"summary_index":1}"#,
            #"{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"Think"}"#,
            #"{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"ing"}"#,
            #"{"type":"response.reasoning_summary_part.done","output_index":0,"summary_index":1}"#,
            #"{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message"}}"#,
            #"{"type":"response.output_text.delta","output_index":1,"content_index":2,"delta":"Two"}"#,
            #"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"Zero"}"#,
            #"{"type":"response.output_text.delta","output_index":1,"content_index":2,"delta":" more"}"#,
            #"{"type":"response.content_part.done","output_index":1,"content_index":0}"#,
            #"{"type":"response.output_text.delta","output_index":1,"content_index":12,"delta":"x"}"#,
            #"{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message"}}"#,
            #"{"type":"response.completed","response":{"id":"resp_1"}}"#,
        ]
        let result = decode(OpenAICaptures.sse(events))
        #expect(result.error == nil)
        #expect(
            result.events == [
                .messageStart(id: "resp_1"), .reasoningStart(id: "rs_1:1"),
                .reasoningDelta(id: "rs_1:1", delta: "Think"),
                .reasoningDelta(id: "rs_1:1", delta: "ing"), .reasoningEnd(id: "rs_1:1"), .textStart(id: "msg_1:2"),
                .textDelta(id: "msg_1:2", delta: "Two"), .textStart(id: "msg_1"),
                .textDelta(id: "msg_1", delta: "Zero"),
                .textDelta(id: "msg_1:2", delta: " more"), .textEnd(id: "msg_1"), .textStart(id: "msg_1:12"),
                .textDelta(id: "msg_1:12", delta: "x"), .textEnd(id: "msg_1:2"), .textEnd(id: "msg_1:12"),
                .finish(reason: .stop, rawReason: "completed"), .done,
            ])
    }

    /// Deltas to one part come in a run and reuse its ID without a lookup; an end, or a new
    /// response, must still be seen by the next delta.
    @Test("a delta after its part ends starts it again; a second response starts its parts again")
    func deltaAfterItsPartEndsOrANewResponseStartsThePartAgain() {
        let delta = #"{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"a"}"#
        let events = [
            #"{"type":"response.created","response":{"id":"resp_1"}}"#,
            #"{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message"}}"#,
            delta, delta,
            #"{"type":"response.content_part.done","output_index":0,"content_index":0}"#,
            delta,
            #"{"type":"response.completed","response":{"id":"resp_1"}}"#,
            #"{"type":"response.created","response":{"id":"resp_2"}}"#,
            delta,
            #"{"type":"response.completed","response":{"id":"resp_2"}}"#,
        ]
        let result = decode(OpenAICaptures.sse(events))
        #expect(result.error == nil)
        #expect(
            result.events == [
                .messageStart(id: "resp_1"), .textStart(id: "msg_1"), .textDelta(id: "msg_1", delta: "a"),
                .textDelta(id: "msg_1", delta: "a"), .textEnd(id: "msg_1"), .textStart(id: "msg_1"),
                .textDelta(id: "msg_1", delta: "a"), .textEnd(id: "msg_1"),
                .finish(reason: .stop, rawReason: "completed"),
                .done, .messageStart(id: "resp_2"), .textStart(id: "item-0"), .textDelta(id: "item-0", delta: "a"),
                .textEnd(id: "item-0"), .finish(reason: .stop, rawReason: "completed"), .done,
            ])
    }

    @Test("decoding the same units twice with fresh decoders gives the same events")
    func deterministic() throws {
        for name in Self.captures {
            let input = OpenAICaptures.sse(try lines(name), eventLines: true)
            let first = decode(input).events
            #expect(!first.isEmpty)
            #expect(decode(input).events == first, "\(name)")
        }
    }
}
