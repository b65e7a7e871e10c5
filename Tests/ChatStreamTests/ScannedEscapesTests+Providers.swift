// Text with two-character escapes on the scanned hot shapes of OpenAI chat, Anthropic, Gemini and
// the UI message stream (read by position since the thirteenth session of issue 32, decoded into a
// temporary copy, as ScannedEscapesTests reads Responses, Ollama and v4): the same events as the
// general path at every chunking, owned and lent, and each escaped unit taken by position (its
// dialect's read called directly says so and lends the decoded text), not handed to yajl.

@_spi(Dialects) import ChatStreamFraming
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct ScannedEscapesProviderTests {
    /// One format's stream: its units (SSE event type and data, or an array element), the ones
    /// before the text deltas, and how a text delta's unit is written.
    struct Shape: Sendable {
        var name: String
        var head: [(type: String, data: String)]
        var delta: @Sendable (String) -> (type: String, data: String)
        var tail: [(type: String, data: String)]
        /// SSE, or a JSON array (Gemini).
        var array = false

        func bytes(_ bodies: [String]) -> [UInt8] {
            let units = head + bodies.map(delta) + tail
            if array { return Array(("[" + units.map(\.data).joined(separator: "\r\n,") + "]").utf8) }
            return Array(
                units.map { ($0.type.isEmpty ? "" : "event: \($0.type)\n") + "data: \($0.data)\n\n" }.joined().utf8)
        }
    }

    static let openAI = Shape(
        name: "openai-chat",
        head: [
            (
                "",
                #"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#
            )
        ],
        delta: {
            (
                "",
                #"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"\#($0)"},"logprobs":null,"finish_reason":null}]}"#
            )
        },
        tail: [
            (
                "",
                #"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#
            ), ("", "[DONE]"),
        ])

    static let anthropic = Shape(
        name: "anthropic",
        head: [
            (
                "message_start",
                #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}"#
            ),
            (
                "content_block_start",
                #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
            ),
            // The first delta goes the general way (it names the block later deltas are read for).
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"A"}}"#
            ),
        ],
        delta: {
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\#($0)"}}"#
            )
        },
        tail: [
            ("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
            (
                "message_delta",
                #"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}"#
            ),
            ("message_stop", #"{"type":"message_stop"}"#),
        ])

    static let gemini = Shape(
        name: "gemini",
        head: [("", #"{"candidates":[{"content":{"parts":[{"text":"A"}],"role":"model"},"index":0}]}"#)],
        delta: { ("", #"{"candidates":[{"content":{"parts":[{"text":"\#($0)"}],"role":"model"},"index":0}]}"#) },
        tail: [
            (
                "",
                #"{"candidates":[{"content":{"parts":[{"text":"."}],"role":"model"},"finishReason":"STOP","index":0}]}"#
            )
        ],
        array: true)

    static let uiStream = Shape(
        name: "ui-message-stream",
        head: [("", #"{"type":"start","messageId":"m1"}"#), ("", #"{"type":"text-start","id":"t1"}"#)],
        delta: { ("", #"{"type":"text-delta","id":"t1","delta":"\#($0)"}"#) },
        tail: [("", #"{"type":"text-end","id":"t1"}"#), ("", #"{"type":"finish"}"#), ("", "[DONE]")])

    /// The pieces of ScannedEscapesTests that a scan takes: non-empty, without a `\u` escape.
    static let shortEscaped = ScannedEscapesTests.pieces.filter { !$0.json.isEmpty && !$0.json.contains(#"\u"#) }

    @Test func escapedTextIsReadAsTheGeneralPathReadsIt() {
        let bodies = ScannedEscapesTests.pieces.map(\.json)
        let text = { (prefix: String, suffix: String) in prefix + ScannedEscapesTests.text + suffix }
        let decoded = [
            (
                ScannedShapesTesting.expectSameAsGeneralPath(OpenAIChatDialect.self, Self.openAI.bytes(bodies)),
                text("", "")
            ),
            (
                ScannedShapesTesting.expectSameAsGeneralPath(AnthropicDialect.self, Self.anthropic.bytes(bodies)),
                text("A", "")
            ),
            (
                ScannedShapesTesting.expectSameAsGeneralPath(GeminiDialect.self, Self.gemini.bytes(bodies)),
                text("A", ".")
            ),
            (
                ScannedShapesTesting.expectSameAsGeneralPath(UIMessageStreamDialect.self, Self.uiStream.bytes(bodies)),
                text("", "")
            ),
        ]
        for (n, (result, expected)) in decoded.enumerated() {
            #expect(result.error == nil, "\(n): \(result)")
            #expect(ScannedEscapesTests.text(of: result.events) == expected, "\(n)")
        }
    }

    @Test func aBadEscapeIsTheGeneralPathsError() {
        let bodies = ["Hi", #"one \"two\""#, #"bad \x escape"#, "never read"]
        for (shape, decode) in [
            (Self.openAI, { ScannedShapesTesting.expectSameAsGeneralPath(OpenAIChatDialect.self, $0) }),
            (Self.anthropic, { ScannedShapesTesting.expectSameAsGeneralPath(AnthropicDialect.self, $0) }),
            (Self.gemini, { ScannedShapesTesting.expectSameAsGeneralPath(GeminiDialect.self, $0) }),
            (Self.uiStream, { ScannedShapesTesting.expectSameAsGeneralPath(UIMessageStreamDialect.self, $0) }),
        ] as [(Shape, ([UInt8]) -> ScannedShapesTesting.Decoded)] {
            let result = decode(shape.bytes(bodies))
            #expect(result.error != nil, "\(shape.name): \(result)")
            #expect(ScannedEscapesTests.text(of: result.events).hasSuffix(#"Hione "two""#), "\(shape.name)")
        }
    }

    /// Feeds `shape`'s head to a fresh `D` the usual way, then hands each escaped delta's unit to
    /// `byPosition` (the dialect's read by position) and expects it taken, its text lent decoded.
    func expectTakenByPosition<D: StreamDialect>(
        _: D.Type, _ shape: Shape,
        _ byPosition: (inout D, FramedUnit, TextDeltaSink, EventSink) throws -> Bool
    ) throws {
        var dialect = D(configuration: StreamDecoderConfiguration())
        var lent = ""
        let textDelta: TextDeltaSink = { _, delta in delta.append(to: &lent) }
        let emit: EventSink = { _ in }
        func withUnit<R>(_ unit: (type: String, data: String), _ body: (FramedUnit) throws -> R) rethrows -> R {
            let type = Array(unit.type.utf8)
            let data = Array(unit.data.utf8)
            return try type.withUnsafeBytes { type in
                try data.withUnsafeBytes { try body(FramedUnit(type: type, data: $0, streamOffset: 0)) }
            }
        }
        for unit in shape.head { try withUnit(unit) { try dialect.decode($0, textDelta: textDelta, emit: emit) } }
        for piece in Self.shortEscaped {
            lent = ""
            let taken = try withUnit(shape.delta(piece.json)) { try byPosition(&dialect, $0, textDelta, emit) }
            #expect(taken, "\(shape.name): \(piece.json) went the general way")
            #expect(lent == piece.text, "\(shape.name): \(piece.json)")
        }
    }

    @Test func escapedTextIsTakenByPosition() throws {
        #expect(Self.shortEscaped.contains { $0.json.contains("\\") })
        try expectTakenByPosition(OpenAIChatDialect.self, Self.openAI) {
            try $0.decodeContentChunkByPosition($1, textDelta: $2, emit: $3)
        }
        try expectTakenByPosition(AnthropicDialect.self, Self.anthropic) {
            try $0.decodeBlockDeltaByPosition($1, textDelta: $2, emit: $3)
        }
        try expectTakenByPosition(GeminiDialect.self, Self.gemini) {
            try $0.decodeTextElementByPosition($1, textDelta: $2, emit: $3)
        }
        try expectTakenByPosition(UIMessageStreamDialect.self, Self.uiStream) {
            try $0.decodeDeltaByPosition($1, textDelta: $2, emit: $3)
        }
    }
}
