// The shapes read by position this round, against the general path: OpenAI chat's tool-call
// argument deltas (one started call's piece of `arguments`, escapes decoded) and Ollama's content
// and thinking lines. Each stream is hand-written to hold the shape and the ways out of it
// (a `\u` escape, a call not yet started, arguments that are not a string, `done` true, an error
// line, duplicated members); it must decode, scanning or with every unit through yajl, to the
// same events and error at every chunking (ScannedShapesTesting), and to the events written here.

import ChatStreamJSON
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct ScannedToolAndLineShapesTests {
    // MARK: - OpenAI chat tool-call deltas

    static let head = #"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":"#

    static func sse(_ chunks: [String]) -> [UInt8] {
        Array(chunks.map { "data: \($0)\n\n" }.joined().utf8) + Array("data: [DONE]\n\n".utf8)
    }

    /// A chunk of choice `choice` whose delta holds `toolCalls` (the array's text).
    static func toolChunk(_ toolCalls: String, choice: Int = 0) -> String {
        head + #"[{"index":\#(choice),"delta":{"tool_calls":\#(toolCalls)},"finish_reason":null}]}"#
    }

    /// The concatenated tool input deltas of call `id`.
    static func toolInput(_ events: [StreamEvent], id: String) -> String {
        events.reduce(into: "") { text, event in
            if case .toolInputDelta(id, let delta) = event { text += delta }
        }
    }

    @Test func toolArgumentDeltasWithEscapesReadAsTheGeneralPath() throws {
        let start =
            Self.head
            + #"[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","#
            + #""type":"function","function":{"name":"write","arguments":""}}]},"finish_reason":null}]}"#
        // Pieces of `{⏎"a":"x/\ny\"é"}` as the wire escapes them, one member order and extra members each.
        let pieces = [
            "{", #"\n"#, #"\""#, "a", #"\""#, ":", #"\"x"#, #"\/"#, #"\\"#, "n", "y", #"\\"#, #"\""#, "é", #"\""#, "}",
        ]
        var chunks = [start]
        for (n, piece) in pieces.enumerated() {
            switch n % 4 {
            case 0: chunks.append(Self.toolChunk(#"[{"index":0,"function":{"arguments":"\#(piece)"}}]"#))
            case 1: chunks.append(Self.toolChunk(#"[{"function":{"arguments":"\#(piece)","name":"other"},"index":0}]"#))
            case 2:
                chunks.append(
                    Self.toolChunk(
                        #"[{"index":0,"id":"call_z","type":"function","function":{"arguments":"\#(piece)"}}]"#))
            default: chunks.append(Self.toolChunk(#"[{"function":{"arguments":"\#(piece)"}}]"#))
            }
        }
        chunks.append(Self.head + #"[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#)
        let decoded = ScannedShapesTesting.expectSameAsGeneralPath(OpenAIChatDialect.self, Self.sse(chunks))
        #expect(decoded.error == nil)
        #expect(Self.toolInput(decoded.events, id: "call_a") == "{\n" + #""a":"x/\ny\"é"}"#)
        #expect(decoded.events.contains(.toolCallStart(id: "call_a", name: "write", providerExecuted: false)))
        #expect(!decoded.events.contains { if case .toolCallStart(id: "call_z", _, _) = $0 { true } else { false } })
    }

    @Test func unicodeEscapesUnstartedCallsAndOtherChoicesGoTheGeneralWay() {
        let chunks = [
            Self.head + #"[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}"#,
            // Arguments before the name: the call is not started, so not read by position.
            Self.toolChunk(#"[{"index":1,"function":{"arguments":"{\"k\""}}]"#),
            Self.toolChunk(#"[{"index":1,"id":"call_b","function":{"name":"look","arguments":":"}}]"#),
            Self.toolChunk(#"[{"index":1,"function":{"arguments":"\"\u00e9\u0041\""}}]"#),
            Self.toolChunk(#"[{"index":1,"function":{"arguments":""}}]"#),
            // Another call, on another choice, then back.
            Self.head
                + #"[{"index":2,"delta":{"tool_calls":[{"index":0,"id":"call_c","function":{"name":"n","arguments":"["}}]},"finish_reason":null}]}"#,
            Self.toolChunk(#"[{"index":1,"function":{"arguments":"}"}}]"#),
            Self.toolChunk(#"[{"index":0,"function":{"arguments":"1]"}}]"#, choice: 2),
            // Two calls in one chunk, then arguments as null and as an object.
            Self.toolChunk(#"[{"index":1,"function":{"arguments":""}},{"index":0,"function":{"arguments":""}}]"#),
            Self.toolChunk(#"[{"index":1,"function":{"arguments":null}}]"#),
            Self.toolChunk(#"[{"index":1,"function":{}}]"#),
            Self.head + #"[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            Self.head + #"[{"index":2,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]
        let decoded = ScannedShapesTesting.expectSameAsGeneralPath(OpenAIChatDialect.self, Self.sse(chunks))
        #expect(decoded.error == nil)
        #expect(Self.toolInput(decoded.events, id: "call_b") == #"{"k":"éA"}"#)
        #expect(Self.toolInput(decoded.events, id: "call_c") == "[1]")
        #expect(
            decoded.events.contains {
                if case .toolInputAvailable("call_c", "n", let input) = $0 { input.jsonText == "[1]" } else { false }
            })
    }

    @Test(arguments: [
        #"[{"index":0,"function":{"arguments":3}}]"#,
        #"[{"index":0,"function":{"arguments":"a","arguments":"b"}}]"#,
        #"[{"index":0,"index":0,"function":{"arguments":"a"}}]"#,
        #"[{"index":0,"function":{"arguments":"a"}}],"tool_calls":null"#,
        #"[{"index":0,"function":{"arguments":"a\u0000"}}]"#,
        #"[{"index":0,"function":{"arguments":"a\x"}}]"#,
        #"[{"index":0,"function":{"arguments":"a"}}"#,
        #"[{"index":00,"function":{"arguments":"a"}}]"#,
        #"[{"index":0,"function":{"arguments":"a"},"extra":[1,{"deep":[{}]}]}]"#,
    ])
    func oddToolDeltasDecodeAsTheGeneralPath(toolCalls: String) {
        let start =
            Self.head + #"[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","#
            + #""function":{"name":"f","arguments":""}}]},"finish_reason":null}]}"#
        let chunks = [start, Self.toolChunk(#"[{"index":0,"function":{"arguments":"{"}}]"#), Self.toolChunk(toolCalls)]
        ScannedShapesTesting.expectSameAsGeneralPath(OpenAIChatDialect.self, Self.sse(chunks), toolCalls)
        // At the least depth the read by position takes (a function is seven levels deep), and below it.
        for depth in [6, 7] {
            ScannedShapesTesting.expectSameAsGeneralPath(
                OpenAIChatDialect.self, Self.sse(chunks), json: JSONConfiguration(maxDepth: depth), chunkings: false,
                toolCalls)
        }
    }

    // MARK: - Ollama lines

    static func line(_ message: String, done: String = "false", extra: String = "") -> String {
        #"{"model":"m","created_at":"t","message":{"role":"assistant",\#(message)},"done":\#(done)\#(extra)}"# + "\n"
    }

    @Test func ollamaThinkingAndContentLinesReadAsTheGeneralPath() {
        let lines = [
            Self.line(#""content":"","thinking":"Let""#),
            Self.line(#""content":"","thinking":" me""#),
            Self.line(#""thinking":"","content":"He""#),
            Self.line(#""content":"llo \"x\"""#),
            Self.line(#""content":"","images":null"#),
            Self.line(#""content":" é""#),
            Self.line(#""content":"\u00e9""#),
            Self.line(#""content":"!","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]"#),
            Self.line(#""content":"ok""#),
            Self.line(#""content":"""#, done: "true", extra: #","done_reason":"stop","eval_count":3"#),
        ]
        let decoded = ScannedShapesTesting.expectSameAsGeneralPath(OllamaDialect.self, Array(lines.joined().utf8))
        #expect(decoded.error == nil)
        let text = decoded.events.reduce(into: "") { text, event in
            if case .textDelta(_, let delta) = event { text += delta }
        }
        #expect(text == #"Hello "x" éé!ok"#)
        #expect(decoded.events.contains(.reasoningDelta(id: "reasoning-0", delta: " me")))
        #expect(decoded.events.last == .done)
    }

    @Test(arguments: [
        ScannedToolAndLineShapesTests.line(#""content":"a""#, done: "0"),
        ScannedToolAndLineShapesTests.line(#""content":"a","content":"b""#),
        ScannedToolAndLineShapesTests.line(#""content":1"#),
        ScannedToolAndLineShapesTests.line(#""thinking":7,"content":"a""#),
        #"{"model":"m","message":{"content":"a"},"done":false,"done":false}"# + "\n",
        #"{"model":"m","message":null,"done":false}"# + "\n",
        #"{"model":"m","done":false}"# + "\n",
        #"{"model":"m","message":{"content":"a"}}"# + "\n",
        #"{"error":"overloaded","message":{"content":"a"},"done":false}"# + "\n",
        #"{"model":"m","message":{"content":"a"},"done":false"# + "\n",
        #"{"model":"m","message":{"content":"a"},"done":false,"x":[}"# + "\n",
    ])
    func oddOllamaLinesDecodeAsTheGeneralPath(odd: String) {
        let lines = [Self.line(#""content":"Hi""#), odd, Self.line(#""content":"""#, done: "true")]
        ScannedShapesTesting.expectSameAsGeneralPath(OllamaDialect.self, Array(lines.joined().utf8), odd)
    }
}
