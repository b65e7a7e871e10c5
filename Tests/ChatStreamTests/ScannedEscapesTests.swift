// Text with two-character escapes on the scanned hot shapes of OpenAI Responses, Ollama and the
// AI SDK v4 stream (read by position since issue 32, decoded into a temporary copy): at every
// chunking, owned and lent, the same events as the general path, and the text yajl decodes; a
// `\u` escape and a bad escape still go the general way (the same text, the same error).

import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct ScannedEscapesTests {
    /// JSON string bodies (escapes as written) and the text each stands for.
    static let pieces: [(json: String, text: String)] = [
        ("Hello", "Hello"), (#" \"quoted\""#, " \"quoted\""), (#" path\\to\\file"#, " path\\to\\file"),
        (#"line\n"#, "line\n"), (#"\n\n"#, "\n\n"), (#"tab\there"#, "tab\there"), (#" caf\u00e9"#, " café"),
        (#" \/\b\f\r"#, " /\u{8}\u{C}\r"), (#" café \"日本語\" 🚀"#, " café \"日本語\" 🚀"), ("", ""), (#"\\"#, "\\"),
    ]

    static var text: String { pieces.map(\.text).joined() }

    static func responses(_ bodies: [String]) -> [UInt8] {
        let item = #""item_id":"msg_1","output_index":0,"content_index":0"#
        var out = #"event: response.output_item.added"# + "\n"
        out +=
            #"data: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}"#
        out += "\n\n" + #"data: {"type":"response.content_part.added",\#(item),"part":{"type":"output_text"}}"# + "\n\n"
        for (n, body) in bodies.enumerated() {
            out +=
                #"data: {"type":"response.output_text.delta","sequence_number":\#(n),\#(item),"delta":"\#(body)","logprobs":[]}"#
            out += "\n\n"
        }
        out += #"data: {"type":"response.output_text.done",\#(item)}"# + "\n\n"
        out += #"data: {"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[]}}"#
        out += "\n\n"
        return Array(out.utf8)
    }

    static func ollama(_ bodies: [String]) -> [UInt8] {
        let head = #"{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","#
        var out = ""
        for body in bodies {
            out += head + #""content":"\#(body)","thinking":"\#(body)"},"done":false}"# + "\n"
        }
        out += head + #""content":""},"done":true,"done_reason":"stop"}"# + "\n"
        return Array(out.utf8)
    }

    static func v4(_ bodies: [String]) -> [UInt8] {
        var out = #"f:{"messageId":"msg-1"}"# + "\n"
        for body in bodies { out += #"0:"\#(body)""# + "\n" }
        out += #"d:{"finishReason":"stop"}"# + "\n"
        return Array(out.utf8)
    }

    /// The text of every text delta, joined.
    static func text(of events: [StreamEvent]) -> String {
        events.reduce(into: "") { text, event in
            if case .textDelta(_, let delta) = event { text += delta }
        }
    }

    @Test func escapedTextIsReadAsTheGeneralPathReadsIt() {
        let bodies = Self.pieces.map(\.json)
        let responses = ScannedShapesTesting.expectSameAsGeneralPath(
            OpenAIResponsesDialect.self, Self.responses(bodies))
        let ollama = ScannedShapesTesting.expectSameAsGeneralPath(OllamaDialect.self, Self.ollama(bodies))
        let v4 = ScannedShapesTesting.expectSameAsGeneralPath(DataStreamV4Dialect.self, Self.v4(bodies))
        for (name, decoded) in [("responses", responses), ("ollama", ollama), ("v4", v4)] {
            #expect(decoded.error == nil, "\(name): \(decoded)")
            #expect(Self.text(of: decoded.events) == Self.text, "\(name)")
        }
    }

    @Test func aBadEscapeIsTheGeneralPathsError() {
        let bodies = ["Hi", #"one \"two\""#, #"bad \x escape"#, "never read"]
        let decoded = [
            (
                "responses",
                ScannedShapesTesting.expectSameAsGeneralPath(OpenAIResponsesDialect.self, Self.responses(bodies))
            ),
            ("ollama", ScannedShapesTesting.expectSameAsGeneralPath(OllamaDialect.self, Self.ollama(bodies))),
            ("v4", ScannedShapesTesting.expectSameAsGeneralPath(DataStreamV4Dialect.self, Self.v4(bodies))),
        ]
        for (name, decoded) in decoded {
            #expect(decoded.error != nil, "\(name): \(decoded)")
            #expect(Self.text(of: decoded.events) == #"Hione "two""#, "\(name)")
        }
    }
}
