// AnthropicDialect against every recorded Anthropic stream in ../shared/captures (read in place),
// each checked against an oracle computed here with Foundation's JSONSerialization, plus
// hand-written edge cases.

import ChatStream
import Foundation
import TestSupport
import Testing

@Suite(.blockingAllowed) struct AnthropicDialectTests {
    static let captures = ProjectPaths.shared + "/captures"
    static let sdkFiles = [
        "fable_stream-a-refusal", "fable_stream-a-toolrefusal", "fable_stream-b-fallback", "py_basic_response",
        "py_compaction_response", "py_fallback_credit_response", "py_fallback_response",
        "py_incomplete_partial_json_response", "py_refusal_response", "py_tool_use_response", "ts_basic_response",
        "ts_incomplete_partial_json_response", "ts_tool_use_response",
    ]
    static let jsonlFiles = [
        "anthropic-advisor-20250301.1", "anthropic-json-tool.2", "anthropic-programmatic-tool-calling.1",
        "anthropic-refusal", "anthropic-text", "anthropic-tool-no-args", "anthropic-web-search-tool.1",
        "duplicate-message-start", "spliced-message-start",
    ]

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: captures + "/" + path)))
    }

    static func jsonl(_ name: String) throws -> (units: [HandUnit], oracle: AnthropicOracle) {
        let bytes = try bytes("vercel-ai-provider-chunks/jsonl/anthropic__\(name).jsonl")
        let units = HandFraming.lines(bytes)
        return (units, AnthropicOracle(payloads: units.map(\.data)))
    }

    static func decode(_ units: [HandUnit]) -> HandResult { HandFraming.run(AnthropicDialect.self, units) }

    // MARK: - Every capture against the oracle

    @Test func everyCaptureFileIsCovered() throws {
        let sdk = try FileManager.default.contentsOfDirectory(atPath: Self.captures + "/anthropic-sdk")
            .filter { $0.hasSuffix(".sse") }.map { String($0.dropLast(4)) }
        #expect(Set(sdk) == Set(Self.sdkFiles))
        let jsonl = try FileManager.default.contentsOfDirectory(
            atPath: Self.captures + "/vercel-ai-provider-chunks/jsonl"
        )
        .filter { $0.hasPrefix("anthropic__") }
        #expect(jsonl.count == Self.jsonlFiles.count)
    }

    @Test(arguments: sdkFiles)
    func sdkCaptureMatchesOracle(_ name: String) throws {
        let bytes = try Self.bytes("anthropic-sdk/\(name).sse")
        // The oracle reads every `data:` line, including a final one that framing drops.
        let text = String(decoding: bytes, as: UTF8.self)
        let payloads = text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { Array($0.dropFirst(6).utf8) }
        let oracle = AnthropicOracle(payloads: payloads)
        let result = Self.decode(HandFraming.sse([bytes]))
        oracle.check(result.events)
        expectWellFormed(result.events)
        if name.hasPrefix("py_") {
            // No blank line after the last event: WHATWG drops it, so message_stop never arrives.
            #expect((result.error as? StreamError)?.kind == .truncated)
            #expect(!result.events.contains(.done))
        } else {
            #expect(result.error == nil)
            #expect(result.events.last == .done)
        }
        for chunking in Chunkings.all(of: bytes) {
            let cut = Self.decode(HandFraming.sse(chunking.pieces))
            #expect(cut.events == result.events, "\(chunking)")
            #expect((cut.error as? StreamError)?.kind == (result.error as? StreamError)?.kind)
        }
    }

    @Test(arguments: jsonlFiles)
    func jsonlCaptureMatchesOracleAndItsSSEWrapping(_ name: String) throws {
        let (units, oracle) = try Self.jsonl(name)
        let result = Self.decode(units)
        #expect(result.error == nil)
        #expect(result.events.last == .done)
        oracle.check(result.events)
        expectWellFormed(result.events)
        let derived = try Self.bytes("vercel-ai-provider-chunks/sse-derived/anthropic__\(name).sse")
        let viaSSE = Self.decode(HandFraming.sse([derived]))
        #expect(viaSSE.events == result.events)
        #expect(viaSSE.error == nil)
    }

    @Test(arguments: ["basic", "tool_use", "incomplete_partial_json"])
    func pythonTwinIsTheTypeScriptOneWithoutItsTerminator(_ name: String) throws {
        let py = Self.decode(HandFraming.sse([try Self.bytes("anthropic-sdk/py_\(name)_response.sse")]))
        let ts = Self.decode(HandFraming.sse([try Self.bytes("anthropic-sdk/ts_\(name)_response.sse")]))
        #expect(ts.error == nil)
        #expect(py.events == Array(ts.events.dropLast()))
        #expect(ts.events.last == .done)
        let error = try #require(py.error as? StreamError)
        #expect(error.kind == .truncated)
        #expect(error.message.contains("message_stop"))
    }

    // MARK: - Specific captures

    @Test func basicResponseExactEvents() throws {
        let result = Self.decode(HandFraming.sse([try Self.bytes("anthropic-sdk/ts_basic_response.sse")]))
        #expect(
            result.events == [
                .messageStart(id: "msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK"),
                .textStart(id: "0-0"), .textDelta(id: "0-0", delta: "Hello"), .textDelta(id: "0-0", delta: " there"),
                .textDelta(id: "0-0", delta: "!"), .textEnd(id: "0-0"),
                .metadata(
                    StreamMetadata(
                        messageId: "msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK",
                        usage: ["input_tokens": 11, "output_tokens": 6])),
                .finish(reason: .stop, rawReason: "end_turn"), .done,
            ])
        #expect(result.unknownUnitCount == 0)  // ping is known
    }

    @Test func toolUseResponseGivesParsedInput() throws {
        let result = Self.decode(HandFraming.sse([try Self.bytes("anthropic-sdk/ts_tool_use_response.sse")]))
        let id = "toolu_01NRLabsLyVHZPKxbKvkfSMn"
        #expect(result.events.contains(.toolCallStart(id: id, name: "get_weather", providerExecuted: false)))
        #expect(result.events.contains(.toolInputAvailable(id: id, name: "get_weather", input: ["location": "Paris"])))
        #expect(result.events.rawFinishReasons == ["tool_use"])
        #expect(result.events.contains(.finish(reason: .toolCalls, rawReason: "tool_use")))
    }

    @Test func inputCutOffByMaxTokensIsAToolInputErrorAndLength() throws {
        let result = Self.decode(
            HandFraming.sse([try Self.bytes("anthropic-sdk/ts_incomplete_partial_json_response.sse")]))
        let errors = result.events.filter { if case .toolInputError = $0 { true } else { false } }
        #expect(errors.count == 1)
        #expect(!result.events.contains { if case .toolInputAvailable = $0 { true } else { false } })
        #expect(result.events.contains(.finish(reason: .length, rawReason: "max_tokens")))
        #expect(result.error == nil)
    }

    @Test func webSearchServerToolAndItsResults() throws {
        let (units, oracle) = try Self.jsonl("anthropic-web-search-tool.1")
        let events = Self.decode(units).events
        let id = "srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k"
        #expect(events.contains(.toolCallStart(id: id, name: "web_search", providerExecuted: true)))
        #expect(
            events.contains(
                .toolInputAvailable(id: id, name: "web_search", input: ["query": "tech news today September 26 2025"])))
        let results = events.compactMap {
            if case .toolResult(let i, let n, let o, let p) = $0 { (i, n, o, p) } else { nil }
        }
        #expect(results.count == 1)
        #expect(results.first?.0 == id && results.first?.1 == "web_search" && results.first?.3 == false)
        let output = try #require(results.first?.2.arrayValue)
        #expect(output.count == oracle.firstResultCount)
        #expect(output.first?["url"]?.stringValue?.hasPrefix("https://") == true)
        let sources = events.filter { if case .source = $0 { true } else { false } }
        #expect(sources.count == oracle.citationURLs && sources.count > 0)
    }

    @Test func advisorTextKeepsMultiByteCharacters() throws {
        let (units, oracle) = try Self.jsonl("anthropic-advisor-20250301.1")
        let events = Self.decode(units).events
        #expect(events.joinedText == oracle.text)
        // 479 in the file, 30 of them in the advisor's tool result.
        #expect(events.joinedText.unicodeScalars.filter { $0 == "\u{2500}" }.count == 449)
        #expect(events.joinedText.unicodeScalars.contains("\u{FE0F}"))
        let result = events.first { if case .toolResult = $0 { true } else { false } }
        guard case .toolResult(_, let name, let output, _) = result else { Issue.record("no tool result"); return }
        #expect(name == "advisor")
        #expect(output["type"] == "advisor_result")
    }

    @Test func programmaticToolCallingIsSeveralWholeMessages() throws {
        let (units, _) = try Self.jsonl("anthropic-programmatic-tool-calling.1")
        let events = Self.decode(units).events
        #expect(events.filter { if case .messageStart = $0 { true } else { false } }.count == 15)
        #expect(events.filter { $0 == .done }.count == 15)
        let rolls = events.compactMap {
            if case .toolInputAvailable(_, "rollDie", let input) = $0 { input } else { nil }
        }
        #expect(rolls.count == 14)
        #expect(rolls.allSatisfy { $0["player"] == "player1" || $0["player"] == "player2" })
        #expect(events.contains { if case .toolResult(_, "code_execution", _, false) = $0 { true } else { false } })
        #expect(events.rawFinishReasons.last == "end_turn")
    }

    @Test(arguments: [("first_chunk", 0), ("midstream", 3)])
    func overloadedErrorIsAnErrorEventNotATruncation(_ name: String, _ eventsBefore: Int) throws {
        let file = try Self.bytes("vercel-ai-provider-chunks/anthropic_\(name)_overloaded_error.chunks.json")
        let object = try JSONSerialization.jsonObject(with: Data(file)) as? [String: Any]
        let chunks = try #require(object?["chunks"] as? [String]).map { Array($0.utf8) }
        let result = Self.decode(HandFraming.sse(chunks))
        #expect(result.error == nil)
        let error = StreamEvent.error(StreamErrorInfo(code: "overloaded_error", message: "Overloaded"))
        #expect(result.events.firstIndex(of: error) == eventsBefore)
        if eventsBefore > 0 {
            #expect(result.events.joinedText == "Hello")
            #expect(result.events.last == .textEnd(id: "0-0"))  // closed at the end of the stream
        }
    }

    @Test func duplicateMessageStartIsIgnored() throws {
        let (units, _) = try Self.jsonl("duplicate-message-start")
        let events = Self.decode(units).events
        #expect(events.filter { if case .messageStart = $0 { true } else { false } } == [.messageStart(id: "msg_dup")])
        #expect(events.joinedText == "Hello, World!")
    }

    @Test func splicedMessageStartClosesTheFirstMessageAndStartsAnother() throws {
        let (units, _) = try Self.jsonl("spliced-message-start")
        let events = Self.decode(units).events
        #expect(
            events.filter { if case .messageStart = $0 { true } else { false } } == [
                .messageStart(id: "msg_first"), .messageStart(id: "msg_second"),
            ])
        #expect(events.contains { if case .toolInputError("toolu_first", "test-tool", _) = $0 { true } else { false } })
        #expect(
            events.contains(.toolInputAvailable(id: "toolu_second", name: "test-tool", input: ["value": "Sparkle Day"]))
        )
        #expect(events.joinedReasoning == "I will call the tool.Let me call the tool.")
        #expect(events.contains(.reasoningEnd(id: "0-0")) && events.contains(.reasoningEnd(id: "1-0")))
    }

    // MARK: - Hand-written edge cases

    static let head = """
        event: message_start
        data: {"type":"message_start","message":{"id":"m1","usage":{"input_tokens":3}}}

        data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}


        """

    @Test func deltaForAnIndexThatNeverStartedIsMalformedNamingTheIndex() throws {
        let text =
            Self.head
            + "data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"
        let result = Self.decode(HandFraming.sse(text))
        let error = try #require(result.error as? StreamError)
        #expect(error.kind == .malformed)
        #expect(error.field == "index" && error.eventType == "content_block_delta")
        #expect(error.message.contains("index 3"))
        #expect(error.byteOffset == Self.head.utf8.count)
    }

    /// Deltas to one block come in a run, and the dialect reads that block again without a
    /// lookup; a stop (or a restart as another kind) must still be seen by the next delta.
    @Test func deltaAfterItsBlockStopsOrRestartsSeesTheChange() throws {
        func delta(_ type: String, _ field: String, _ value: String) -> String {
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"\(type)\",\"\(field)\":\"\(value)\"}}\n\n"
        }
        let text = delta("text_delta", "text", "a") + delta("text_delta", "text", "b")
        let stop = "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        let stopped = Self.decode(HandFraming.sse(Self.head + text + stop + delta("text_delta", "text", "c")))
        let error = try #require(stopped.error as? StreamError)
        #expect(error.field == "index" && error.message.contains("no open content block"))
        #expect(stopped.events.joinedText == "ab")

        let tool =
            "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\",\"input\":{}}}\n\n"
        let restarted = Self.decode(
            HandFraming.sse(Self.head + text + tool + delta("input_json_delta", "partial_json", "{}")))
        #expect((restarted.error as? StreamError)?.kind == .truncated)  // no message_stop: only that
        #expect(restarted.events.contains(.toolInputDelta(id: "toolu_1", delta: "{}")))
        #expect(restarted.events.joinedText == "ab")
    }

    /// The input of the tool block the last input went to is kept apart from the others (appended
    /// to without a lookup): inputs of two open tool blocks that take turns, each stopped in either
    /// order, must each be whole, read by position and the general way alike.
    @Test func interleavedToolInputsEachStayWhole() throws {
        func start(_ index: Int) -> String {
            "data: {\"type\":\"content_block_start\",\"index\":\(index),\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\(index)\",\"name\":\"f\",\"input\":{}}}\n\n"
        }
        func delta(_ index: Int, _ piece: String) -> String {
            "data: {\"type\":\"content_block_delta\",\"index\":\(index),\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\(piece)\"}}\n\n"
        }
        func stop(_ index: Int) -> String { "data: {\"type\":\"content_block_stop\",\"index\":\(index)}\n\n" }
        let end = "data: {\"type\":\"message_stop\"}\n\n"
        for stops in [[1, 2], [2, 1]] {
            let body =
                start(1) + start(2) + delta(1, "{\\\"a\\\"") + delta(1, ":1") + delta(2, "{\\\"b\\\":")
                + delta(1, ",\\\"c\\\":2")
                + delta(2, "[3]") + delta(2, "}") + delta(1, "}") + stop(stops[0]) + stop(stops[1]) + end
            let bytes = Array((Self.head + body).utf8)
            let decoded = ScannedShapesTesting.expectSameAsGeneralPath(AnthropicDialect.self, bytes, chunkings: false)
            #expect(
                decoded.events.contains(.toolInputAvailable(id: "t1", name: "f", input: ["a": 1, "c": 2])), "\(stops)")
            #expect(decoded.events.contains(.toolInputAvailable(id: "t2", name: "f", input: ["b": [3]])), "\(stops)")
        }
    }

    @Test func invalidJSONAndMissingTypeAreMalformed() throws {
        let bad = Self.decode(HandFraming.sse(Self.head + "event: content_block_delta\ndata: {\"type\":\n\n"))
        let badError = try #require(bad.error as? StreamError)
        #expect(badError.kind == .malformed && badError.eventType == "content_block_delta")
        #expect((badError.byteOffset ?? 0) > Self.head.utf8.count)
        let untyped = Self.decode(HandFraming.sse(Self.head + "data: {\"index\":0}\n\n"))
        #expect((untyped.error as? StreamError)?.field == "type")
        let wrongDelta = Self.decode(
            HandFraming.sse(
                Self.head
                    + "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"
            ))
        #expect((wrongDelta.error as? StreamError)?.field == "delta.type")
    }

    @Test func unknownTypesAreSkippedAndCounted() {
        let text =
            Self.head + """
                data: {"type":"future_event","x":1}

                data: {"type":"content_block_delta","index":0,"delta":{"type":"future_delta"}}

                data: {"type":"content_block_start","index":1,"content_block":{"type":"future_block"}}

                data: {"type":"content_block_delta","index":1,"delta":{"type":"anything"}}

                data: {"type":"message_stop"}


                """
        let result = Self.decode(HandFraming.sse(text))
        #expect(result.error == nil)
        #expect(result.unknownUnitCount == 3)
        // The unknown block is kept whole (its delta had nothing but a type to join).
        #expect(
            result.events == [
                .messageStart(id: "m1"), .textStart(id: "0-0"), .textEnd(id: "0-0"),
                .unknown(type: "future_block", raw: ["type": "future_block"]), .done,
            ])
    }

    @Test func streamCutMidTextIsTruncatedAfterClosingTheText() throws {
        let text =
            Self.head
            + "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"
        let result = Self.decode(HandFraming.sse(text))
        #expect((result.error as? StreamError)?.kind == .truncated)
        #expect(result.events.suffix(2) == [.textDelta(id: "0-0", delta: "Hi"), .textEnd(id: "0-0")])
        #expect((Self.decode([]).error as? StreamError)?.kind == .truncated)
    }

    @Test func wholeInputInContentBlockStartAndRedactedThinking() {
        let text =
            Self.head + """
                data: {"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"xyz"}}

                data: {"type":"content_block_stop","index":1}

                data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t1","name":"f","input":{"a":[1,2]}}}

                data: {"type":"content_block_stop","index":2}

                data: {"type":"message_stop"}


                """
        let result = Self.decode(HandFraming.sse(text))
        #expect(result.unknownUnitCount == 0)
        #expect(
            Array(result.events.dropFirst(2)) == [
                .unknown(type: "redacted_thinking", raw: ["type": "redacted_thinking", "data": "xyz"]),
                .toolCallStart(id: "t1", name: "f", providerExecuted: false),
                .toolInputDelta(id: "t1", delta: #"{"a":[1,2]}"#),
                .toolInputAvailable(id: "t1", name: "f", input: ["a": [1, 2]]),
                .textEnd(id: "0-0"), .done,
            ])
    }
}

// MARK: - Oracle and invariants

/// What an Anthropic stream holds, computed independently with JSONSerialization from the raw
/// data payloads: joined text and thinking, tool calls with their inputs, stop reasons.
struct AnthropicOracle {
    var text = ""
    var thinking = ""
    /// (id, name, input as JSON text with sorted keys; nil when the input is not valid JSON).
    var toolCalls: [(String, String, String?)] = []
    var stopReasons: [String] = []
    var errorTypes: [String] = []
    var citationURLs = 0
    var firstResultCount = 0

    init(payloads: [[UInt8]]) {
        var open: [Int: (id: String, name: String, text: String, whole: Any?)] = [:]
        func close(_ index: Int) {
            guard let call = open.removeValue(forKey: index) else { return }
            var input: Any? = call.whole ?? [String: Any]()
            if !call.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                input = try? JSONSerialization.jsonObject(with: Data(call.text.utf8), options: .fragmentsAllowed)
            }
            toolCalls.append((call.id, call.name, input.map(AnthropicOracle.canonical)))
        }
        func closeAll() { for index in open.keys.sorted() { close(index) } }
        for payload in payloads {
            guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
                let type = object["type"] as? String
            else { continue }
            let index = object["index"] as? Int ?? -1
            let delta = object["delta"] as? [String: Any] ?? [:]
            switch type {
            case "message_start":
                closeAll()
                for block in (object["message"] as? [String: Any])?["content"] as? [[String: Any]] ?? [] {
                    if let id = block["id"] as? String, let name = block["name"] as? String {
                        toolCalls.append((id, name, AnthropicOracle.canonical(block["input"] ?? [String: Any]())))
                    }
                }
            case "content_block_start":
                close(index)
                let block = object["content_block"] as? [String: Any] ?? [:]
                if ["tool_use", "server_tool_use", "mcp_tool_use"].contains(block["type"] as? String ?? ""),
                    let id = block["id"] as? String, let name = block["name"] as? String
                {
                    let whole = (block["input"] as? [String: Any]).flatMap { $0.isEmpty ? nil : $0 }
                    open[index] = (id, name, "", whole)
                }
                if firstResultCount == 0, let results = block["content"] as? [Any], block["tool_use_id"] != nil {
                    firstResultCount = results.count
                }
            case "content_block_delta":
                switch delta["type"] as? String {
                case "text_delta": text += delta["text"] as? String ?? ""
                case "thinking_delta": thinking += delta["thinking"] as? String ?? ""
                case "input_json_delta": open[index]?.text += delta["partial_json"] as? String ?? ""
                case "citations_delta":
                    if (delta["citation"] as? [String: Any])?["url"] is String { citationURLs += 1 }
                default: break
                }
            case "content_block_stop": close(index)
            case "message_delta":
                closeAll()
                if let reason = delta["stop_reason"] as? String { stopReasons.append(reason) }
            case "message_stop": closeAll()
            case "error": errorTypes.append((object["error"] as? [String: Any])?["type"] as? String ?? "")
            default: break
            }
        }
        closeAll()
    }

    static func canonical(_ value: Any) -> String {
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }

    /// Expects the decoded events to hold exactly what the oracle found.
    func check(_ events: [StreamEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(events.joinedText == text, sourceLocation: sourceLocation)
        #expect(events.joinedReasoning == thinking, sourceLocation: sourceLocation)
        let decodedCalls: [(String, String, String?)] = events.compactMap {
            switch $0 {
            case .toolInputAvailable(let id, let name, let input):
                return (
                    id, name,
                    AnthropicOracle.canonical(
                        try! JSONSerialization.jsonObject(
                            with: Data(input.jsonText.utf8), options: .fragmentsAllowed))
                )
            case .toolInputError(let id, let name, _): return (id, name ?? "", nil)
            default: return nil
            }
        }
        #expect(decodedCalls.map(\.0) == toolCalls.map(\.0), sourceLocation: sourceLocation)
        #expect(decodedCalls.map(\.1) == toolCalls.map(\.1), sourceLocation: sourceLocation)
        #expect(decodedCalls.map(\.2) == toolCalls.map(\.2), sourceLocation: sourceLocation)
        let finishes = events.compactMap { if case .finish(let reason, let raw) = $0 { (reason, raw) } else { nil } }
        #expect(finishes.compactMap(\.1).suffix(stopReasons.count) == stopReasons[...], sourceLocation: sourceLocation)
        #expect(
            finishes.allSatisfy { $0.0 == $0.1.map(StreamFinishReason.init(normalizing:)) },
            sourceLocation: sourceLocation)
        let errors = events.compactMap { if case .error(let info) = $0 { info.code ?? "" } else { nil } }
        #expect(errors == errorTypes, sourceLocation: sourceLocation)
    }
}

/// Expects every part to start before its deltas, end once, and every tool call to end in an
/// input or an input error; nothing is left open (dialects close parts even when cut off).
func expectWellFormed(_ events: [StreamEvent], sourceLocation: SourceLocation = #_sourceLocation) {
    var open = Set<String>()
    var seen = Set<String>()
    var tools = Set<String>()
    for event in events {
        switch event {
        case .textStart(let id), .reasoningStart(let id):
            #expect(seen.insert(id).inserted, "part \(id) started twice", sourceLocation: sourceLocation)
            open.insert(id)
        case .textDelta(let id, _), .reasoningDelta(let id, _):
            #expect(open.contains(id), "delta for part \(id) that is not open", sourceLocation: sourceLocation)
        case .textEnd(let id), .reasoningEnd(let id):
            #expect(open.remove(id) != nil, "end of part \(id) that is not open", sourceLocation: sourceLocation)
        case .toolCallStart(let id, _, _):
            #expect(tools.insert(id).inserted, sourceLocation: sourceLocation)
        case .toolInputDelta(let id, _):
            #expect(tools.contains(id), sourceLocation: sourceLocation)
        case .toolInputAvailable(let id, _, _), .toolInputError(let id, _, _):
            #expect(tools.remove(id) != nil, sourceLocation: sourceLocation)
        default: break
        }
    }
    #expect(open.isEmpty && tools.isEmpty, "left open: \(open) \(tools)", sourceLocation: sourceLocation)
}
