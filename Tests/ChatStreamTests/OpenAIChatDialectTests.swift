// Tests for OpenAIChatDialect, over the recorded captures in ../shared/captures (read in place).
//
// The oracle is independent of the decoder: Foundation's JSONSerialization reads each payload and
// the test concatenates `choices[k].delta.content` etc. itself. The decoder's events are folded
// into a `Transcript` that also checks the event grammar (parts start before deltas and end once).

@_spi(Dialects) import ChatStream
@_spi(Dialects) import ChatStreamFraming
import Foundation
import TestSupport
import Testing

// MARK: - Shared test support (used by the Responses tests too)

/// Reading captures and running a dialect over bytes.
enum OpenAICaptures {
    static let root = ProjectPaths.shared + "/captures/"

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: root + path)))
    }

    /// The non-blank lines of a jsonl capture (each one SSE data payload).
    static func lines(_ path: String) throws -> [String] {
        String(decoding: try bytes(path), as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { !$0.allSatisfy(\.isWhitespace) }
    }

    /// The data payloads of an SSE capture (test-side split on blank lines; single-line data only).
    static func ssePayloads(_ path: String) throws -> [String] {
        String(decoding: try bytes(path), as: UTF8.self).components(separatedBy: "\n\n").compactMap { block in
            block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }).map { String($0.dropFirst(6)) }
        }
    }

    /// Payloads as SSE text; `eventLines` adds `event: <type>` as the Responses API sends it.
    static func sse(_ payloads: [String], eventLines: Bool = false, done: Bool = false) -> [UInt8] {
        var text = ""
        for payload in payloads {
            if eventLines, let type = object(payload)?["type"] as? String { text += "event: \(type)\n" }
            text += "data: \(payload)\n\n"
        }
        if done { text += "data: [DONE]\n\n" }
        return Array(text.utf8)
    }

    static func object(_ payload: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
    }

    /// Decodes `pieces` with a fresh decoder; returns every event emitted and the error thrown, if any.
    static func run<D: StreamDialect>(
        _ dialect: D.Type, _ pieces: [[UInt8]], configuration: StreamDecoderConfiguration = .init()
    ) -> (events: [StreamEvent], error: StreamError?, unknown: Int) {
        var decoder = StreamDecoder<D>(configuration: configuration)
        var events: [StreamEvent] = []
        do {
            for piece in pieces {
                try decoder.feed(piece, into: &events)
            }
            try decoder.finish(into: &events)
            return (events, nil, decoder.unknownUnitCount)
        } catch let error as StreamError {
            return (events, error, decoder.unknownUnitCount)
        } catch {
            Issue.record("unexpected error \(error)")
            return (events, nil, decoder.unknownUnitCount)
        }
    }

    /// Compares two JSON values through Foundation, so number spellings do not matter.
    static func sameJSON(_ value: JSONTree?, _ foundation: Any?) -> Bool {
        guard let value, let foundation else { return value == nil && foundation == nil }
        guard let mine = try? JSONSerialization.jsonObject(with: Data(value.jsonText.utf8), options: .fragmentsAllowed)
        else { return false }
        return canonical(mine) != nil && canonical(mine) == canonical(foundation)
    }

    /// Foundation's serialization with sorted keys: equal values give equal bytes.
    static func canonical(_ object: Any) -> Data? {
        try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    }

    static func parseJSON(_ text: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
    }
}

/// The decoder's events folded per choice, checking the event grammar on the way.
struct Transcript {
    struct ToolCall {
        var id: String
        var name: String
        var providerExecuted: Bool
        var inputText = ""
        var input: JSONTree?
        var inputError: String?
        var result: JSONTree?
    }
    struct Choice {
        var text = ""
        var reasoning = ""
        var refusal = ""
        var textParts: [String] = []
        var reasoningParts: [String] = []
        var toolCalls: [ToolCall] = []
        var finishes: [(StreamFinishReason?, String?)] = []
    }
    var choices: [Int: Choice] = [0: Choice()]
    var messageStarts: [String?] = []
    var errors: [StreamErrorInfo] = []
    var usages: [JSONTree] = []
    var sources: [StreamSource] = []
    var doneCount = 0
    var choiceMarkers = 0
    var problems: [String] = []

    init(_ events: [StreamEvent]) {
        var current = 0
        var open: Set<String> = []
        var ended = false
        for event in events {
            func edit(_ body: (inout Choice) -> Void) { body(&choices[current, default: Choice()]) }
            func call(_ id: String, _ body: (inout ToolCall) -> Void) {
                edit { choice in
                    if let i = choice.toolCalls.lastIndex(where: { $0.id == id }) {
                        body(&choice.toolCalls[i])
                    } else {
                        problems.append("tool event before toolCallStart for \(id)")
                    }
                }
            }
            if ended {
                switch event {
                case .messageStart: ended = false
                default: problems.append("\(event) after done")
                }
            }
            switch event {
            case .messageStart(let id): messageStarts.append(id)
            case .choice(let index):
                if index == current { problems.append("redundant choice marker \(index)") }
                current = index
                choiceMarkers += 1
            case .textStart(let id):
                if !open.insert("\(current) t" + id).inserted { problems.append("text \(id) started twice") }
                edit { $0.textParts.append(id) }
            case .textDelta(let id, let delta):
                if !open.contains("\(current) t" + id) { problems.append("text delta outside part \(id)") }
                edit { $0.text += delta }
            case .textEnd(let id):
                if open.remove("\(current) t" + id) == nil { problems.append("text end without start \(id)") }
            case .reasoningStart(let id):
                if !open.insert("\(current) r" + id).inserted { problems.append("reasoning \(id) started twice") }
                edit { $0.reasoningParts.append(id) }
            case .reasoningDelta(let id, let delta):
                if !open.contains("\(current) r" + id) { problems.append("reasoning delta outside part \(id)") }
                edit { $0.reasoning += delta }
            case .reasoningEnd(let id):
                if open.remove("\(current) r" + id) == nil { problems.append("reasoning end without start \(id)") }
            case .refusalDelta(_, let delta): edit { $0.refusal += delta }
            case .toolCallStart(let id, let name, let providerExecuted):
                edit { $0.toolCalls.append(ToolCall(id: id, name: name, providerExecuted: providerExecuted)) }
            case .toolInputDelta(let id, let delta): call(id) { $0.inputText += delta }
            case .toolInputAvailable(let id, let name, let input):
                call(id) {
                    if $0.input != nil || $0.inputError != nil { problems.append("tool \(id) completed twice") }
                    if $0.name != name { problems.append("tool \(id) name changed") }
                    $0.input = input
                }
            case .toolInputError(let id, _, let text): call(id) { $0.inputError = text }
            case .toolResult(let id, _, let output, _): call(id) { $0.result = output }
            case .metadata(let metadata): if let usage = metadata.usage { usages.append(usage) }
            case .finish(let reason, let raw):
                let mine = open.filter { $0.hasPrefix("\(current) ") }
                if !mine.isEmpty { problems.append("finish with open parts \(mine)") }
                edit { $0.finishes.append((reason, raw)) }
            case .error(let info): errors.append(info)
            case .source(let source): sources.append(source)
            case .done:
                doneCount += 1
                ended = true
            default: break
            }
        }
        if !open.isEmpty { problems.append("parts never ended: \(open)") }
    }
}

// MARK: - Chat oracle

/// What a Chat Completions capture holds, read with Foundation.
struct ChatOracle {
    struct Call {
        var id = ""
        var name = ""
        var arguments = ""
    }
    var id: String?
    var text: [Int: String] = [:]
    var reasoning: [Int: String] = [:]
    var refusal: [Int: String] = [:]
    var calls: [Int: [Int: Call]] = [:]
    var finishes: [Int: String] = [:]
    var usages: [Any] = []

    init(_ payloads: [String]) {
        for payload in payloads where payload != "[DONE]" {
            guard let chunk = OpenAICaptures.object(payload) else { continue }
            if id == nil { id = chunk["id"] as? String }
            if let usage = chunk["usage"] as? [String: Any] { usages.append(usage) }
            for choice in chunk["choices"] as? [[String: Any]] ?? [] {
                let k = choice["index"] as? Int ?? 0
                let delta = choice["delta"] as? [String: Any] ?? [:]
                text[k, default: ""] += delta["content"] as? String ?? ""
                reasoning[k, default: ""] += delta["reasoning_content"] as? String ?? ""
                refusal[k, default: ""] += delta["refusal"] as? String ?? ""
                for call in delta["tool_calls"] as? [[String: Any]] ?? [] {
                    let i = call["index"] as? Int ?? 0
                    var entry = calls[k, default: [:]][i, default: Call()]
                    if entry.id.isEmpty { entry.id = call["id"] as? String ?? "" }
                    let function = call["function"] as? [String: Any] ?? [:]
                    if entry.name.isEmpty { entry.name = function["name"] as? String ?? "" }
                    entry.arguments += function["arguments"] as? String ?? ""
                    calls[k, default: [:]][i] = entry
                }
                if let reason = choice["finish_reason"] as? String { finishes[k] = reason }
            }
        }
    }

    /// Expects the transcript to hold exactly what the oracle read.
    func check(_ transcript: Transcript, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(transcript.problems == [], sourceLocation: sourceLocation)
        #expect(transcript.messageStarts == [id], sourceLocation: sourceLocation)
        #expect(transcript.doneCount == 1, sourceLocation: sourceLocation)
        let indexes = Set(text.keys).union(finishes.keys)
        for k in indexes.sorted() {
            let choice = transcript.choices[k] ?? Transcript.Choice()
            #expect(choice.text == text[k, default: ""], "choice \(k) text", sourceLocation: sourceLocation)
            #expect(
                choice.reasoning == reasoning[k, default: ""], "choice \(k) reasoning", sourceLocation: sourceLocation)
            #expect(choice.refusal == refusal[k, default: ""], "choice \(k) refusal", sourceLocation: sourceLocation)
            #expect(choice.textParts.count == (text[k, default: ""].isEmpty ? 0 : 1), sourceLocation: sourceLocation)
            let raw = finishes[k]
            #expect(choice.finishes.count == 1, "choice \(k) finishes once", sourceLocation: sourceLocation)
            #expect(choice.finishes.first?.1 == raw, sourceLocation: sourceLocation)
            #expect(
                choice.finishes.first?.0 == raw.map(StreamFinishReason.init(normalizing:)),
                sourceLocation: sourceLocation)
            let expected = (calls[k] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
            #expect(choice.toolCalls.map(\.id) == expected.map(\.id), sourceLocation: sourceLocation)
            #expect(choice.toolCalls.map(\.name) == expected.map(\.name), sourceLocation: sourceLocation)
            for (call, oracle) in zip(choice.toolCalls, expected) {
                #expect(call.inputText == oracle.arguments, sourceLocation: sourceLocation)
                let parsed = oracle.arguments.isEmpty ? [String: Any]() : OpenAICaptures.parseJSON(oracle.arguments)
                #expect(
                    OpenAICaptures.sameJSON(call.input, parsed), "tool \(call.id) input", sourceLocation: sourceLocation
                )
            }
        }
        #expect(transcript.usages.count == usages.count, sourceLocation: sourceLocation)
        for (mine, theirs) in zip(transcript.usages, usages) {
            #expect(OpenAICaptures.sameJSON(mine, theirs), sourceLocation: sourceLocation)
        }
    }
}

// MARK: - Tests

@Suite("OpenAI Chat Completions dialect", .blockingAllowed)
struct OpenAIChatDialectTests {
    static let pythonCaptures = [
        "content_logprobs", "json_content_long_many_chunks", "max_tokens_finish_length", "multiple_choices_n3",
        "non_strict_tools_no_parsing", "parallel_tool_calls_two", "parse_nothing_text",
        "parse_pydantic_model_json_content", "refusal_delta", "refusal_logprobs", "single_tool_call",
        "strict_tool_call",
    ]
    static let vendorCaptures = [
        "openai__openai-text", "deepseek__deepseek-tool-call", "groq__groq-tool-call",
        "mistral__mistral-incremental-tool-call", "openai-compatible__xai-tool-call",
    ]

    func decode(_ input: [UInt8]) -> (events: [StreamEvent], error: StreamError?, unknown: Int) {
        OpenAICaptures.run(OpenAIChatDialect.self, [input])
    }

    @Test("openai-python captures decode to what they hold, however they are cut", arguments: pythonCaptures)
    func pythonCapture(_ name: String) throws {
        let path = "openai-python-chat-completions/\(name).sse"
        let input = try OpenAICaptures.bytes(path)
        let whole = decode(input)
        #expect(whole.error == nil)
        #expect(whole.events.last == .done)
        ChatOracle(try OpenAICaptures.ssePayloads(path)).check(Transcript(whole.events))
        for chunking in Chunkings.all(of: input, seeds: [7]) where chunking.name != "whole" {
            let cut = OpenAICaptures.run(OpenAIChatDialect.self, chunking.pieces)
            #expect(cut.events == whole.events, "\(chunking)")
        }
    }

    @Test("vendor captures (jsonl, one payload per line) decode to what they hold", arguments: vendorCaptures)
    func vendorCapture(_ name: String) throws {
        let lines = try OpenAICaptures.lines("vercel-ai-provider-chunks/jsonl/\(name).jsonl")
        let result = decode(OpenAICaptures.sse(lines, done: true))
        #expect(result.error == nil)
        ChatOracle(lines).check(Transcript(result.events))
        // The SSE-derived copy of the same payloads decodes the same (it lacks [DONE], so add it).
        let derived = try OpenAICaptures.bytes("vercel-ai-provider-chunks/sse-derived/\(name).sse")
        #expect(decode(derived + Array("data: [DONE]\n\n".utf8)).events == result.events)
        // Without [DONE] the stream is still complete: every choice gave its finish reason.
        let withoutDone = decode(derived)
        #expect(withoutDone.error == nil)
        #expect(withoutDone.events == result.events)
    }

    @Test("n=3 gives three separate choices, each marked, each finished")
    func threeChoices() throws {
        let result = decode(try OpenAICaptures.bytes("openai-python-chat-completions/multiple_choices_n3.sse"))
        let transcript = Transcript(result.events)
        #expect(transcript.choices.count == 3)
        #expect(transcript.choiceMarkers > 3)
        for k in 0..<3 {
            let choice = try #require(transcript.choices[k])
            #expect(choice.text.hasPrefix("{\"city\""))
            #expect(choice.textParts == ["text-\(k)"])
            #expect(choice.finishes.map(\.0) == [.stop])
        }
        #expect(result.events.first == .messageStart(id: "chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq"))
    }

    @Test("specific captures: refusal, length, parallel calls")
    func specificCaptures() throws {
        let refusal = Transcript(
            decode(try OpenAICaptures.bytes("openai-python-chat-completions/refusal_delta.sse")).events)
        #expect(refusal.choices[0]?.refusal == "I'm sorry, I can't assist with that request.")
        #expect(refusal.choices[0]?.text == "")
        let length = Transcript(
            decode(try OpenAICaptures.bytes("openai-python-chat-completions/max_tokens_finish_length.sse")).events)
        #expect(length.choices[0]?.finishes.map(\.0) == [.length])
        let parallel = Transcript(
            decode(try OpenAICaptures.bytes("openai-python-chat-completions/parallel_tool_calls_two.sse")).events)
        let calls = try #require(parallel.choices[0]?.toolCalls)
        #expect(calls.map(\.id) == ["call_JMW1whyEaYG438VE1OIflxA2", "call_DNYTawLBoN8fj3KN6qU9N1Ou"])
        #expect(calls.map(\.name) == ["GetWeatherArgs", "get_stock_price"])
        #expect(calls[0].input?["city"]?.stringValue == "Edinburgh")
        #expect(parallel.choices[0]?.finishes.map(\.0) == [.toolCalls])
    }

    @Test("tool call index starting at 1 after an empty-arguments delta is one call")
    func anthropicFallback() throws {
        let path = "vercel-ai-provider-chunks/openai-compatible__anthropic-fallback-tool-call.raw.sse"
        let stored = try OpenAICaptures.bytes(path)
        // The stored file ends "data: [DONE]\n" with no blank line: per the SSE rules that block is
        // never dispatched; as stored the stream is still complete, its choice having finished.
        let asStored = decode(stored)
        #expect(asStored.error == nil)
        let result = decode(stored + [0x0A])
        #expect(result.error == nil)
        #expect(asStored.events == result.events)
        let transcript = Transcript(result.events)
        ChatOracle(try OpenAICaptures.ssePayloads(path)).check(transcript)
        #expect(transcript.choices[0]?.text == "Reading it.")
        let calls = try #require(transcript.choices[0]?.toolCalls)
        #expect(calls.count == 1)
        #expect(calls.first?.id == "toolu_sanitized")
        #expect(calls.first?.name == "read_file")
        #expect(calls.first?.input == .object(JSONObject([("path", .string("a.txt"))])))
    }

    @Test("mistral's later empty name does not overwrite the name")
    func mistralName() throws {
        let lines = try OpenAICaptures.lines(
            "vercel-ai-provider-chunks/jsonl/mistral__mistral-incremental-tool-call.jsonl")
        let transcript = Transcript(decode(OpenAICaptures.sse(lines, done: true)).events)
        let call = try #require(transcript.choices[0]?.toolCalls.first)
        #expect(call.name == "webSearchTool")
        #expect(call.input?["query"]?.stringValue == "current Berlin weather")
        #expect(transcript.usages.count == 1)
    }

    @Test("an error body is an error event with its code, and not a truncation")
    func errorBody() {
        let input = Array(
            """
            data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}

            data: {"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}

            data: {"error":{"message":"Overloaded","type":"server_error"}}


            """.utf8)
        let result = decode(input)
        #expect(result.error == nil)
        let transcript = Transcript(result.events)
        #expect(
            transcript.errors == [
                StreamErrorInfo(code: "rate_limit_exceeded", message: "Rate limit reached"),
                StreamErrorInfo(code: "server_error", message: "Overloaded"),
            ])
        #expect(transcript.choices[0]?.text == "Hi")
        #expect(result.events.contains(.textEnd(id: "text-0")))
    }

    @Test("truncation: events so far are emitted, open calls completed, then finish throws truncated")
    func truncation() throws {
        let payloads = try OpenAICaptures.ssePayloads("openai-python-chat-completions/parallel_tool_calls_two.sse")
        // Cut inside the second call's arguments: no finish_reason, no usage, no [DONE].
        let cut = Array(payloads.prefix(16))
        let result = decode(OpenAICaptures.sse(cut))
        #expect(result.error?.kind == .truncated)
        let lastBlock = OpenAICaptures.sse(Array(cut.dropLast())).count
        let offset = try #require(result.error?.byteOffset)
        #expect(offset > lastBlock && offset <= OpenAICaptures.sse(cut).count)
        let transcript = Transcript(result.events)
        #expect(transcript.doneCount == 0)
        let calls = try #require(transcript.choices[0]?.toolCalls)
        #expect(calls.count == 2)
        #expect(calls[0].input?["city"]?.stringValue == "Edinburgh")
        #expect(calls[1].input == nil)
        #expect(calls[1].inputError != nil)
        #expect(transcript.choices[0]?.finishes.isEmpty == true)
    }

    @Test("malformed JSON throws malformed within the unit; a bad field names it")
    func malformed() throws {
        let good = #"data: {"id":"c","choices":[{"index":0,"delta":{"content":"A"},"finish_reason":null}]}"# + "\n\n"
        let bad = "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\n\n"
        let result = decode(Array((good + bad).utf8))
        let error = try #require(result.error)
        #expect(error.kind == .malformed)
        let offset = try #require(error.byteOffset)
        #expect(offset >= good.utf8.count && offset <= good.utf8.count + bad.utf8.count)
        #expect(
            result.events == [.messageStart(id: "c"), .textStart(id: "text-0"), .textDelta(id: "text-0", delta: "A")])

        // Directly on the dialect: a field of the wrong kind, at the unit's offset.
        var dialect = OpenAIChatDialect(configuration: .init())
        let data = Array(#"{"id":"c","choices":{"index":0}}"#.utf8)
        let thrown = #expect(throws: StreamError.self) {
            try data.withUnsafeBytes { bytes in
                try dialect.decode(
                    FramedUnit(type: UnsafeRawBufferPointer(start: nil, count: 0), data: bytes, streamOffset: 1234)
                ) { _ in }
            }
        }
        #expect(thrown?.kind == .malformed)
        #expect(thrown?.byteOffset == 1234)
        #expect(thrown?.field == "choices")
    }

    @Test("invalid tool arguments become a tool input error; unknown chunks are counted")
    func invalidArgumentsAndUnknown() {
        let input = Array(
            """
            data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\\"a\\":"}}]},"finish_reason":null}]}

            data: {"object":"keepalive"}

            data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

            data: [DONE]


            """.utf8)
        let result = decode(input)
        #expect(result.error == nil)
        #expect(result.unknown == 1)
        let call = Transcript(result.events).choices[0]?.toolCalls.first
        #expect(call?.inputText == #"{"a":"#)
        #expect(call?.input == nil)
        #expect(call?.inputError?.isEmpty == false)
    }

    @Test("decoding the same units twice with fresh decoders gives the same events")
    func deterministic() throws {
        for name in Self.pythonCaptures {
            let input = try OpenAICaptures.bytes("openai-python-chat-completions/\(name).sse")
            let first = decode(input).events
            #expect(!first.isEmpty)
            #expect(decode(input).events == first, "\(name)")
        }
    }
}
