// Payloads: deterministic (seeded) byte streams the benchmark decodes.
//
// Each generator returns the exact bytes a server would send plus what a correct decoder must
// produce from them (the assembled text, the tool input), so every measured path is also checked.

/// SplitMix64: a small, fast, seeded generator, so every run sees the same bytes.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A generated stream: its bytes, the byte ranges of its JSON payloads, and the expected output.
struct StreamPayload {
    var name: String
    var bytes: [UInt8]
    /// (offset, length) of each unit's JSON in `bytes` (the `data:` value, the JSON after a v4
    /// `N:`, an NDJSON line, an array element), for the ceilings.
    var jsonRanges: [(Int, Int)]
    /// Units in the stream: SSE events (JSON payloads plus `[DONE]`), lines, or array elements.
    var eventCount: Int
    /// The text the assembled message must hold.
    var expectedText: String
    /// How many text-delta events the stream carries.
    var textDeltaCount: Int
}

enum Payloads {
    /// Words a reply is made of: plain English, punctuation that JSON escapes (quotes,
    /// backslashes, newlines, tabs), and multibyte text (accents, CJK, emoji).
    static let words: [String] = [
        "the", "model", "streams", "a", "reply", "token", "by", "token", "and", "each", "delta", "is", "small",
        "hello", "world", "Swift", "decoder", "yajl", "parser", "bytes", "event", "message", "assistant",
        "function", "result", "value", "because", "however", "therefore", "example", "configuration",
        "performance", "streaming", "JSON", "of", "in", "to", "for", "with", "on", "that", "this", "it",
        "\"quoted\"", "path\\to\\file", "line\n", "\n\n", "tab\there", "café", "naïve", "über", "日本語",
        "テキスト", "中文", "🚀", "👍🏽", "Ωmega", "emoji😀", "1,234", "3.14", "(see below)", "- item\n",
        "**bold**", "`code`", "x = y + 1;", "{braces}", "[brackets]", "50%", "<tag>", "&amp;",
    ]

    /// The JSON string body (without quotes) for `text`; every 50th call writes non-ASCII as
    /// `\u` escapes, as some servers do.
    static func jsonEscaped(_ text: String, unicodeEscapes: Bool = false) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || (unicodeEscapes && scalar.value > 0x7F) {
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    static func event(_ json: String) -> String { "data: " + json + "\n\n" }

    /// The home protocol (UI message stream): start, text-start, text deltas of one to three
    /// words (~60-byte events), text-end, finish with Chatbase metadata, `[DONE]`.
    static func homeTextDeltas(targetBytes: Int, seed: UInt64 = 42) -> StreamPayload {
        var random = SeededGenerator(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(targetBytes + 1024)
        var ranges: [(Int, Int)] = []
        var expected = ""
        var deltas = 0
        func add(_ json: String) {
            out += "data: ".utf8
            ranges.append((out.count, json.utf8.count))
            out += json.utf8
            out += "\n\n".utf8
        }
        add(#"{"type":"start","messageId":"msg_0001"}"#)
        add(#"{"type":"start-step"}"#)
        add(#"{"type":"text-start","id":"t1"}"#)
        while out.count < targetBytes {
            var delta = ""
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                delta += words[Int.random(in: 0..<words.count, using: &random)]
                delta += " "
            }
            expected += delta
            deltas += 1
            add(
                #"{"type":"text-delta","id":"t1","delta":""# + jsonEscaped(delta, unicodeEscapes: deltas % 50 == 0)
                    + #""}"#)
        }
        add(#"{"type":"text-end","id":"t1"}"#)
        add(#"{"type":"finish-step"}"#)
        add(
            #"{"type":"finish","finishReason":"stop","messageMetadata":{"conversationId":"conv_42","messageId":"msg_0001","userMessageId":"msg_0000","userId":"user_7","finishReason":"stop","usage":{"credits":2}}}"#
        )
        out += "data: [DONE]\n\n".utf8
        return StreamPayload(
            name: "home", bytes: out, jsonRanges: ranges, eventCount: ranges.count + 1, expectedText: expected,
            textDeltaCount: deltas)
    }

    /// OpenAI Chat Completions chunks (~225-byte events): a first chunk with the role, one
    /// chunk per word of text, a chunk with `finish_reason: "stop"`, a usage chunk with no
    /// choices (as `stream_options.include_usage` sends), `[DONE]`.
    static func openAIChatChunks(targetBytes: Int, seed: UInt64 = 43) -> StreamPayload {
        var random = SeededGenerator(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(targetBytes + 1024)
        var ranges: [(Int, Int)] = []
        var expected = ""
        var deltas = 0
        func add(_ json: String) {
            out += "data: ".utf8
            ranges.append((out.count, json.utf8.count))
            out += json.utf8
            out += "\n\n".utf8
        }
        let head =
            #"{"id":"chatcmpl-AB7xQ2mZkR9vT4LpWn3sYc8dEf1Gh","object":"chat.completion.chunk","created":1727346000,"#
            + #""model":"gpt-4o-2024-08-06","choices":"#
        func choice(_ delta: String, finish: String = "null") -> String {
            head + #"[{"index":0,"delta":"# + delta + #","logprobs":null,"finish_reason":"# + finish + "}]}"
        }
        add(choice(#"{"role":"assistant","content":"","refusal":null}"#))
        while out.count < targetBytes {
            let delta = " " + words[Int.random(in: 0..<words.count, using: &random)]
            expected += delta
            deltas += 1
            add(choice(#"{"content":""# + jsonEscaped(delta, unicodeEscapes: deltas % 50 == 0) + #""}"#))
        }
        add(choice("{}", finish: #""stop""#))
        add(
            head
                + #"[],"usage":{"prompt_tokens":31,"completion_tokens":\#(deltas),"total_tokens":\#(deltas + 31),"#
                + #""prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}"#)
        out += "data: [DONE]\n\n".utf8
        return StreamPayload(
            name: "openai-chat", bytes: out, jsonRanges: ranges, eventCount: ranges.count + 1,
            expectedText: expected, textDeltaCount: deltas)
    }

    /// Anthropic Messages events (named SSE events, ~130 bytes a delta): message_start,
    /// content_block_start, one text_delta per one to three words, content_block_stop,
    /// message_delta (stop_reason end_turn, usage), message_stop. No `[DONE]`.
    static func anthropicEvents(targetBytes: Int, seed: UInt64 = 44) -> StreamPayload {
        var random = SeededGenerator(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(targetBytes + 1024)
        var ranges: [(Int, Int)] = []
        var expected = ""
        var deltas = 0
        func add(_ type: String, _ json: String) {
            out += "event: \(type)\ndata: ".utf8
            ranges.append((out.count, json.utf8.count))
            out += json.utf8
            out += "\n\n".utf8
        }
        add(
            "message_start",
            #"{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","#
                + #""role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"#
                + #""stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#)
        add(
            "content_block_start",
            #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#)
        while out.count < targetBytes {
            var delta = ""
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                delta += words[Int.random(in: 0..<words.count, using: &random)]
                delta += " "
            }
            expected += delta
            deltas += 1
            add(
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""#
                    + jsonEscaped(delta, unicodeEscapes: deltas % 50 == 0) + #""}}"#)
        }
        add("content_block_stop", #"{"type":"content_block_stop","index":0}"#)
        add(
            "message_delta",
            #"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"#
                + #""usage":{"output_tokens":\#(deltas)}}"#)
        add("message_stop", #"{"type":"message_stop"}"#)
        return StreamPayload(
            name: "anthropic", bytes: out, jsonRanges: ranges, eventCount: ranges.count, expectedText: expected,
            textDeltaCount: deltas)
    }

    /// A tool call whose input (`inputBytes` of ASCII JSON) streams one byte per
    /// `tool-input-delta` event. Returns the stream and the input text.
    static func toolInputStream(inputBytes: Int, seed: UInt64 = 7) -> (payload: StreamPayload, input: String) {
        toolInputStream(inputBytes: inputBytes, format: .uiMessageStream, seed: seed)
    }

    /// The formats ``toolInputStream(inputBytes:format:seed:)`` writes.
    enum ToolFormat: Sendable { case uiMessageStream, openAIChat, anthropic }

    /// A tool call whose input (`inputBytes` of ASCII JSON) streams one byte per delta event of
    /// `format`: `tool-input-delta`, `delta.tool_calls[0].function.arguments` or
    /// `input_json_delta`. Returns the stream and the input text.
    static func toolInputStream(inputBytes: Int, format: ToolFormat, seed: UInt64 = 7) -> (
        payload: StreamPayload, input: String
    ) {
        var random = SeededGenerator(seed: seed)
        let ascii = words.filter { $0.utf8.allSatisfy { $0 < 0x80 } }
        let head = #"{"path":"docs/notes.md","mode":"overwrite","content":""#
        let tail = #""}"#
        var input = head
        while true {
            let token = jsonEscaped(ascii[Int.random(in: 0..<ascii.count, using: &random)] + " ")
            if input.utf8.count + token.utf8.count + tail.utf8.count > inputBytes { break }
            input += token
        }
        while input.utf8.count + tail.utf8.count < inputBytes { input += " " }
        input += tail
        var out: [UInt8] = []
        out.reserveCapacity(inputBytes * 80)
        var ranges: [(Int, Int)] = []
        func add(_ json: String, event: String? = nil) {
            if let event { out += "event: \(event)\n".utf8 }
            out += "data: ".utf8
            ranges.append((out.count, json.utf8.count))
            out += json.utf8
            out += "\n\n".utf8
        }
        // Each delta is byte runs (event line, `data: `, before, the escaped byte, after) appended as bytes:
        // 200,000 events built as Strings cost more than the decoder reading them, in every profile.
        precondition(input.utf8.allSatisfy { $0 < 0x80 }, "the tool input is ASCII")
        let escaped = (0..<128).map { Array(jsonEscaped(String(decoding: [UInt8($0)], as: UTF8.self)).utf8) }
        let pieces = input.utf8.map { escaped[Int($0)] }
        let data = Array("data: ".utf8)
        let blankLine = Array("\n\n".utf8)
        func addDelta(_ before: String, _ after: String, event: String? = nil) {
            let (before, after) = (Array(before.utf8), Array(after.utf8))
            let eventLine = event.map { Array("event: \($0)\n".utf8) } ?? []
            for piece in pieces {
                out += eventLine
                out += data
                let start = out.count
                out += before
                out += piece
                out += after
                ranges.append((start, out.count - start))
                out += blankLine
            }
        }
        switch format {
        case .uiMessageStream:
            add(#"{"type":"start","messageId":"msg_tool"}"#)
            add(#"{"type":"tool-input-start","toolCallId":"call_1","toolName":"write_file"}"#)
            let before = #"{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":""#
            addDelta(before, #""}"#)
            add(#"{"type":"finish","finishReason":"tool-calls"}"#)
            out += "data: [DONE]\n\n".utf8
        case .openAIChat:
            let head = #"{"id":"chatcmpl-tool","object":"chat.completion.chunk","created":1727346000,"choices":"#
            add(
                head + #"[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"#
                    + #""id":"call_1","type":"function","function":{"name":"write_file","arguments":""}}]},"#
                    + #""finish_reason":null}]}"#)
            let before = head + #"[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":""#
            addDelta(before, #""}}]},"finish_reason":null}]}"#)
            add(head + #"[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#)
            out += "data: [DONE]\n\n".utf8
        case .anthropic:
            add(
                #"{"type":"message_start","message":{"id":"msg_tool","type":"message","role":"assistant","#
                    + #""model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"#
                    + #""stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#, event: "message_start")
            add(
                #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"call_1","#
                    + #""name":"write_file","input":{}}}"#, event: "content_block_start")
            let before = #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""#
            addDelta(before, #""}}"#, event: "content_block_delta")
            add(#"{"type":"content_block_stop","index":0}"#, event: "content_block_stop")
            add(
                #"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"#
                    + #""usage":{"output_tokens":\#(pieces.count)}}"#, event: "message_delta")
            add(#"{"type":"message_stop"}"#, event: "message_stop")
        }
        return (
            StreamPayload(
                name: "tool-input", bytes: out, jsonRanges: ranges, eventCount: ranges.count + 1, expectedText: "",
                textDeltaCount: 0),
            input
        )
    }

    /// One block of the 1 GiB stream: a whole message (start ... finish) of `deltas` text deltas.
    static func messageBlock(deltas: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        var text = event(#"{"type":"start","messageId":"msg_g"}"#) + event(#"{"type":"text-start","id":"t1"}"#)
        for _ in 0..<deltas {
            let delta = words[Int.random(in: 0..<words.count, using: &random)] + " "
            text += event(#"{"type":"text-delta","id":"t1","delta":""# + jsonEscaped(delta) + #""}"#)
        }
        text += event(#"{"type":"text-end","id":"t1"}"#) + event(#"{"type":"finish","finishReason":"stop"}"#)
        return Array(text.utf8)
    }

    /// A history page (`{"data":[...],"pagination":{...}}`) of `count` messages with text,
    /// tool-call and tool-result parts.
    static func historyPage(count: Int, seed: UInt64 = 99) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        func sentence(_ n: Int) -> String {
            var s = ""
            for i in 0..<n {
                if i > 0 { s += " " }
                s += words[Int.random(in: 0..<words.count, using: &random)]
            }
            return jsonEscaped(s)
        }
        var messages: [String] = []
        for i in 0..<count {
            let user = i % 2 == 0
            var parts = [#"{"type":"text","text":""# + sentence(Int.random(in: 5...60, using: &random)) + #""}"#]
            if !user && i % 6 == 1 {
                parts.append(
                    #"{"type":"tool-call","toolCallId":"call_\#(i)","toolName":"get_weather","input":{"city":"Paris","days":3,"units":"metric","detailed":true}}"#
                )
                parts.append(
                    #"{"type":"tool-result","toolCallId":"call_\#(i)","toolName":"get_weather","output":{"forecast":[{"day":1,"high":21.5,"low":12,"sky":"sunny"},{"day":2,"high":19,"low":11.25,"sky":"cloudy"}]}}"#
                )
                parts.append(#"{"type":"text","text":""# + sentence(20) + #""}"#)
            }
            let feedback = user ? "null" : (i % 10 == 3 ? #""positive""# : "null")
            let metadata = user ? "" : #","metadata":{"score":0.\#(Int.random(in: 100...999, using: &random))}"#
            messages.append(
                #"{"id":"msg_\#(i)","role":"\#(user ? "user" : "assistant")","parts":[\#(parts.joined(separator: ","))],"createdAt":\#(1_700_000_000 + i * 17),"feedback":\#(feedback)\#(metadata)}"#
            )
        }
        let page =
            #"{"data":["# + messages.joined(separator: ",")
            + #"],"pagination":{"cursor":"eyJvZmZzZXQiOjEwMH0","hasMore":true,"total":1234}}"#
        return Array(page.utf8)
    }
}
