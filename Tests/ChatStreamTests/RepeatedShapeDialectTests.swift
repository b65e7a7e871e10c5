// Units read through the last unit's shape (JSONScan.RepeatedShape) in OpenAI chat, Gemini,
// OpenAI Responses (a hole for its sequence number) and Ollama (a hole for its `created_at`):
// streams whose envelope repeats, changes, grows members after `choices` (modern OpenAI's
// `obfuscation`, a usage object, an error) or changes its usage between elements decode at every
// chunking, owned and lent, exactly as the general path decodes them; and a repeated unit is read
// through the shape (the dialect's shape matches it), not member by member.

@_spi(Dialects) import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct RepeatedShapeDialectTests {
    static func openAIChunk(_ delta: String, id: String = "c1", after: String = "", finish: String = "null") -> String {
        #"{"id":"\#(id)","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":\#(delta),"logprobs":null,"finish_reason":\#(finish)}]\#(after)}"#
    }

    static func sse(_ units: [String]) -> [UInt8] { Array(units.map { "data: \($0)\n\n" }.joined().utf8) }

    static let openAIUnits: [String] = [
        openAIChunk(#"{"role":"assistant","content":""}"#),
        openAIChunk(#"{"content":"Hello"}"#), openAIChunk(#"{"content":" there\n"}"#),
        openAIChunk(#"{"content":" caf\u00e9"}"#), openAIChunk(#"{"content":""}"#),
        openAIChunk(#"{"content":" again"}"#),
        // Another envelope, then members after `choices`.
        openAIChunk(#"{"content":" new id"}"#, id: "c2"), openAIChunk(#"{"content":" more"}"#, id: "c2"),
        openAIChunk(#"{"content":" o"}"#, id: "c2", after: #","usage":null,"obfuscation":"Qup1""#),
        openAIChunk(#"{"content":" p"}"#, id: "c2", after: #","usage":null,"obfuscation":"yh""#),
        openAIChunk(#"{"content":" u"}"#, id: "c2", after: #","usage":{"prompt_tokens":3,"completion_tokens":4}"#),
        openAIChunk(#"{"content":" v"}"#, id: "c2", after: #","choices":[]"#),
        openAIChunk(#"{"content":" w"}"#, id: "c2"),
        // Another choice, then a tool call whose arguments repeat the envelope.
        #"{"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":1,"delta":{"content":" one"},"finish_reason":null}]}"#,
        #"{"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":1,"delta":{"content":" two"},"finish_reason":null}]}"#,
        openAIChunk(
            #"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}"#,
            id: "c2"),
        openAIChunk(#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]}"#, id: "c2"),
        openAIChunk(#"{"tool_calls":[{"index":0,"function":{"arguments":":1"}}]}"#, id: "c2"),
        openAIChunk(#"{"tool_calls":[{"index":0,"function":{"arguments":""}}]}"#, id: "c2"),
        openAIChunk(#"{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}"#, id: "c2"),
        openAIChunk(#"{}"#, id: "c2", finish: #""tool_calls""#), "[DONE]",
    ]

    @Test func openAIChunksDecodeAsTheGeneralPathDecodesThem() {
        let decoded = ScannedShapesTesting.expectSameAsGeneralPath(OpenAIChatDialect.self, Self.sse(Self.openAIUnits))
        #expect(decoded.error == nil, "\(decoded)")
        #expect(ScannedEscapesTests.text(of: decoded.events).hasPrefix("Hello there\n café again new id more o p u"))
        // An error after `choices` is the general path's too.
        var withError = Self.openAIUnits
        withError.insert(Self.openAIChunk(#"{"content":" e"}"#, id: "c2", after: #","error":{"message":"no"}"#), at: 13)
        ScannedShapesTesting.expectSameAsGeneralPath(OpenAIChatDialect.self, Self.sse(withError))
    }

    /// Feeds `units` to a fresh dialect the usual way; whether `shape` of it then matches `next`.
    static func matchesAfter<D: StreamDialect>(
        _: D.Type, _ units: [String], next: String, depth: Int, shape: (D) -> JSONScan.RepeatedShape
    ) throws -> Bool {
        var dialect = D(configuration: StreamDecoderConfiguration())
        for unit in units {
            try Array(unit.utf8).withUnsafeBytes { data in
                try dialect.decode(FramedUnit(data: data, streamOffset: 0), textDelta: { _, _ in }, emit: { _ in })
            }
        }
        return Array(next.utf8).withUnsafeBytes {
            shape(dialect).match($0, depth: depth, configuration: JSONConfiguration()) != nil
        }
    }

    @Test func aRepeatedChunkIsReadThroughTheShape() throws {
        let units = Array(Self.openAIUnits.prefix(3))
        #expect(
            try Self.matchesAfter(OpenAIChatDialect.self, units, next: Self.openAIUnits[5], depth: 4) {
                $0.repeatedChunk
            })
        #expect(
            try !Self.matchesAfter(OpenAIChatDialect.self, units, next: Self.openAIUnits[6], depth: 4) {
                $0.repeatedChunk
            })
        let tool = Array(Self.openAIUnits.prefix(17))
        #expect(
            try Self.matchesAfter(OpenAIChatDialect.self, tool, next: Self.openAIUnits[17], depth: 4) {
                $0.repeatedChunk
            })
    }

    static func geminiElement(_ text: String, usage: Int = 9, finish: String = "") -> String {
        #"{"candidates":[{"content":{"parts":[{"text":"\#(text)"}],"role":"model"},\#(finish)"index":0}],"usageMetadata":{"promptTokenCount":\#(usage)},"modelVersion":"g","responseId":"r1"}"#
    }

    static let geminiUnits: [String] = [
        geminiElement("Hello"), geminiElement(#" there\n"#), geminiElement(" again"), geminiElement(#" caf\u00e9"#),
        // The usage changes, then comes back: each change is an event, so an element with the old
        // usage must not be read through a shape taken before the change.
        geminiElement(" u"), geminiElement(" v", usage: 12), geminiElement(" w"), geminiElement(" x"),
        geminiElement("", usage: 12), geminiElement(".", usage: 12, finish: #""finishReason":"STOP","#),
    ]

    @Test func geminiElementsDecodeAsTheGeneralPathDecodesThem() {
        let bytes = Array(("[" + Self.geminiUnits.joined(separator: "\r\n,") + "]").utf8)
        let decoded = ScannedShapesTesting.expectSameAsGeneralPath(GeminiDialect.self, bytes)
        #expect(decoded.error == nil, "\(decoded)")
        #expect(ScannedEscapesTests.text(of: decoded.events) == "Hello there\n again café u v w x.")
        let usages = decoded.events.filter { if case .metadata = $0 { true } else { false } }
        #expect(usages.count == 4, "\(usages)")
    }

    @Test func aRepeatedElementIsReadThroughTheShapeUntilTheUsageChanges() throws {
        let units = Array(Self.geminiUnits.prefix(3))
        #expect(
            try Self.matchesAfter(GeminiDialect.self, units, next: Self.geminiUnits[4], depth: 6) { $0.repeatedElement }
        )
        let changed = Array(Self.geminiUnits.prefix(6))
        #expect(
            try !Self.matchesAfter(GeminiDialect.self, changed, next: Self.geminiUnits[6], depth: 6) {
                $0.repeatedElement
            })
    }

    static func responsesDelta(_ n: Int, _ text: String, part: Int = 0, after: String = "") -> String {
        #"{"type":"response.output_text.delta","sequence_number":\#(n),"item_id":"msg_1","output_index":0,"content_index":\#(part),"delta":"\#(text)","logprobs":[]\#(after)}"#
    }

    static let responsesUnits: [(type: String, data: String)] = {
        let added =
            #"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}"#
        func part(_ n: Int, _ k: Int) -> String {
            #"{"type":"response.content_part.added","sequence_number":\#(n),"item_id":"msg_1","output_index":0,"content_index":\#(k),"part":{"type":"output_text"}}"#
        }
        var units: [(String, String)] = [
            (
                "response.created",
                #"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[]}}"#
            ),
            ("response.output_item.added", added), ("response.content_part.added", part(2, 0)),
        ]
        // Sequence numbers of one, two and three digits; escapes; a `\u` escape; obfuscation after the text.
        let texts = ["Hello", " there\\n", " caf\\u00e9", " a", " b"]
        for n in 3..<120 {
            let after = n % 3 == 0 ? #","obfuscation":"q\#(n)""# : ""
            units.append(("response.output_text.delta", responsesDelta(n, texts[n % texts.count], after: after)))
        }
        // A delta with its sequence number written another way goes the general way.
        units.append(
            (
                "response.output_text.delta",
                responsesDelta(120, " neg").replacingOccurrences(of: ":120,", with: ":120.0,")
            ))
        // Another part: the last shape's content_index no longer matches what the dialect expects.
        units.append(("response.content_part.added", part(121, 1)))
        units.append(("response.output_text.delta", responsesDelta(122, " second", part: 1)))
        units.append(("response.output_text.delta", responsesDelta(123, " part", part: 1)))
        units.append(
            (
                "response.completed",
                #"{"type":"response.completed","sequence_number":124,"response":{"id":"resp_1","status":"completed","output":[]}}"#
            ))
        return units
    }()

    @Test func responsesDeltasDecodeAsTheGeneralPathDecodesThem() {
        let bytes = Array(Self.responsesUnits.map { "event: \($0.type)\ndata: \($0.data)\n\n" }.joined().utf8)
        let decoded = ScannedShapesTesting.expectSameAsGeneralPath(OpenAIResponsesDialect.self, bytes, chunkings: false)
        #expect(decoded.error == nil, "\(decoded)")
        let text = ScannedEscapesTests.text(of: decoded.events)
        #expect(text.hasPrefix(" a bHello there\n café a b"), "\(text.prefix(40))")
        #expect(text.hasSuffix(" neg second part"))
        // Every chunking, on a shorter stream.
        let short = Array(Self.responsesUnits.prefix(14)) + Array(Self.responsesUnits.suffix(5))
        ScannedShapesTesting.expectSameAsGeneralPath(
            OpenAIResponsesDialect.self, Array(short.map { "event: \($0.type)\ndata: \($0.data)\n\n" }.joined().utf8))
    }

    @Test func aRepeatedDeltaIsReadThroughTheShapeWhateverItsSequenceNumber() throws {
        var dialect = OpenAIResponsesDialect(configuration: StreamDecoderConfiguration())
        for unit in Self.responsesUnits.prefix(5) {
            try Array(unit.type.utf8).withUnsafeBytes { type in
                try Array(unit.data.utf8).withUnsafeBytes { data in
                    try dialect.decode(
                        FramedUnit(type: type, data: data, streamOffset: 0), textDelta: { _, _ in }, emit: { _ in })
                }
            }
        }
        for n in [5, 99, 1000, 123_456] {
            let matched = Array(Self.responsesDelta(n, " next").utf8).withUnsafeBytes {
                dialect.repeatedDelta.match($0, depth: 1, configuration: JSONConfiguration())
            }
            #expect(matched != nil, "\(n)")
        }
    }

    static func ollamaLine(_ time: String, _ message: String, done: String = "false") -> String {
        #"{"model":"llama3.2","created_at":"\#(time)","message":\#(message),"done":\#(done)}"#
    }

    static let ollamaLines: [String] = [
        ollamaLine("2025-01-01T00:00:00.1Z", #"{"role":"assistant","content":"Hello"}"#),
        ollamaLine("2025-01-01T00:00:00.12Z", #"{"role":"assistant","content":" there\n"}"#),
        ollamaLine("2025-01-01T00:00:00.123Z", #"{"role":"assistant","content":" caf\u00e9"}"#),
        ollamaLine("2025-01-01T00:00:01Z", #"{"role":"assistant","content":""}"#),
        ollamaLine("2025-01-01T00:00:01.5Z", #"{"role":"assistant","content":" again"}"#),
        // A time with an escape, thinking, then text again; a tool call; other members.
        ollamaLine(#"2025-01-01T00:00:02\u005a"#, #"{"role":"assistant","content":" esc"}"#),
        ollamaLine("2025-01-01T00:00:02Z", #"{"role":"assistant","content":"","thinking":"hm"}"#),
        ollamaLine("2025-01-01T00:00:03Z", #"{"role":"assistant","content":"","thinking":" more"}"#),
        ollamaLine("2025-01-01T00:00:04Z", #"{"role":"assistant","content":" after"}"#),
        ollamaLine("2025-01-01T00:00:05Z", #"{"role":"assistant","content":" x"}"#),
        ollamaLine(
            "2025-01-01T00:00:06Z",
            #"{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]}"#),
        ollamaLine("2025-01-01T00:00:07Z", #"{"role":"assistant","content":" y"}"#),
        ollamaLine("2025-01-01T00:00:08Z", #"{"role":"user","content":" z"}"#),
        ollamaLine("2025-01-01T00:00:09.999Z", #"{"role":"user","content":" w"}"#),
        #"{"model":"llama3.2","created_at":"2025-01-01T00:00:10Z","message":{"role":"user","content":" v"},"done":false,"x":1}"#,
        ollamaLine("2025-01-01T00:00:11Z", #"{"role":"assistant","content":""}"#, done: #"true,"done_reason":"stop""#),
    ]

    @Test func ollamaLinesDecodeAsTheGeneralPathDecodesThem() {
        let bytes = Array(Self.ollamaLines.map { $0 + "\n" }.joined().utf8)
        let decoded = ScannedShapesTesting.expectSameAsGeneralPath(OllamaDialect.self, bytes)
        #expect(decoded.error == nil, "\(decoded)")
        #expect(ScannedEscapesTests.text(of: decoded.events) == "Hello there\n café again esc after x y z w v")
    }

    @Test func aRepeatedLineIsReadThroughTheShapeWhateverItsTime() throws {
        let units = Array(Self.ollamaLines.prefix(2))
        for time in ["2025-01-01T00:00:00.1Z", "2026-12-04T13:00:00.123456789Z", ""] {
            #expect(
                try Self.matchesAfter(
                    OllamaDialect.self, units, next: Self.ollamaLine(time, #"{"role":"assistant","content":"n"}"#),
                    depth: 2
                ) { $0.repeatedLine }, "\(time)")
        }
        // Thinking is not remembered in a shape (the line after it is read in full).
        #expect(
            try !Self.matchesAfter(
                OllamaDialect.self, Array(Self.ollamaLines.prefix(7)), next: Self.ollamaLines[7], depth: 2
            ) { $0.repeatedLine })
        #expect(
            try !Self.matchesAfter(
                OllamaDialect.self, units, next: Self.ollamaLine("t", #"{"role":"user","content":"n"}"#), depth: 2
            ) { $0.repeatedLine })
    }

    /// `units` (SSE event type, or none, and data) fed to `dialect` the usual way; the text deltas
    /// it lent, as part ID and text.
    static func feed<D: StreamDialect>(_ dialect: inout D, _ units: [(type: String, data: String)]) throws -> [(
        id: String, text: String
    )] {
        var deltas: [(id: String, text: String)] = []
        for unit in units {
            try Array(unit.type.utf8).withUnsafeBytes { type in
                try Array(unit.data.utf8).withUnsafeBytes { data in
                    try dialect.decode(
                        FramedUnit(type: type, data: data, streamOffset: 0),
                        textDelta: { id, delta in
                            var text = ""
                            delta.append(to: &text)
                            deltas.append((id, text))
                        }, emit: { _ in })
                }
            }
        }
        return deltas
    }

    /// `shape` recorded from `unit` around the first occurrence of `string`'s content, up to the
    /// unit's end or (`throughString`) to the string's closing quote.
    static func record(
        _ shape: inout JSONScan.RepeatedShape, _ unit: String, around string: String, throughString: Bool = false
    ) {
        let bytes = Array(unit.utf8)
        let quoted = Array("\"\(string)\"".utf8)
        let at = (0...(bytes.count - quoted.count)).first { Array(bytes[$0..<($0 + quoted.count)]) == quoted }! + 1
        bytes.withUnsafeBytes { data in
            shape.record(
                data, content: UnsafeRawBufferPointer(rebasing: data[at..<(at + quoted.count - 2)]),
                suffixEnd: throughString ? at + quoted.count - 1 : data.count)
        }
    }

    /// Each dialect reads a unit of its shape through the shape, trusting it: a shape that says
    /// something the unit's own read would not (another choice, a text that is a thought, another
    /// content part) shows in what the dialect makes of the unit. (A dialect that read such units in
    /// full instead would pass every other test here.)
    @Test func eachDialectReadsAUnitOfItsShapeThroughIt() throws {
        var openAI = OpenAIChatDialect(configuration: StreamDecoderConfiguration())
        let head = try Self.feed(&openAI, Self.openAIUnits.prefix(3).map { ("", $0) })
        openAI.repeatedChunkRead = (choice: 1, toolCall: nil)
        let next = try Self.feed(&openAI, [("", Self.openAIUnits[5])])
        #expect(next.map(\.text) == [" again"])
        #expect(next.first?.id != head.last?.id, "read in full: the text went to choice 0")

        var gemini = GeminiDialect(configuration: StreamDecoderConfiguration())
        _ = try Self.feed(&gemini, Self.geminiUnits.prefix(2).map { ("", $0) })
        let thought = { (text: String) in
            #"{"candidates":[{"content":{"parts":[{"text":"\#(text)","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9},"modelVersion":"g","responseId":"r1"}"#
        }
        Self.record(&gemini.repeatedElement, thought("T"), around: "T")
        #expect(try Self.feed(&gemini, [("", thought(" deep"))]).map(\.text) == [" deep"], "read in full: a thought")

        var responses = OpenAIResponsesDialect(configuration: StreamDecoderConfiguration())
        let parts = try Self.feed(&responses, Array(Self.responsesUnits.prefix(5)))
        let elsewhere = Self.responsesDelta(9, " other", part: 3)
        Self.record(&responses.repeatedDelta, elsewhere, around: " other", throughString: true)
        responses.repeatedDeltaIndexes = (output: 0, content: 0)
        let taken = try Self.feed(&responses, [("response.output_text.delta", elsewhere)])
        #expect(taken.map(\.text) == [" other"], "read in full: content part 3 is no part of the reply")
        #expect(taken.first?.id == parts.last?.id)
    }
}
