// The deltas read by position (UIMessageStreamDialect+DeltasByPosition,
// AnthropicDialect+DeltasByPosition): the usual bytes give exactly the event (or lent text) the
// JSON parser's reading gives, every other shape is left to the general path untouched, and whole
// streams decode the same at every chunking as the same streams in a shape only the general path
// reads.

import ChatStreamFraming
import ChatStreamJSON
import TestSupport
import Testing

@testable import ChatStream

/// Runs `body` with `bytes` as a unit's data.
private func withUnit<R>(_ bytes: [UInt8], _ body: (FramedUnit) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes { data in
        try body(FramedUnit(type: UnsafeRawBufferPointer(start: nil, count: 0), data: data, streamOffset: 0))
    }
}

/// The tool call ID and delta of a UI chunk as the JSON parser reads them.
private func parsedUIDelta(_ bytes: [UInt8]) throws -> StreamEvent? {
    try JSONParser().parse(bytes) { root in
        guard let id = root["toolCallId"]?.string, let delta = root["inputTextDelta"]?.string else { return nil }
        return .toolInputDelta(id: id, delta: delta)
    }
}

/// A UI tool-input delta chunk in the usual compact shape.
private func uiChunk(id: String = "call_1", _ escapedDelta: String) -> [UInt8] {
    Array(#"{"type":"tool-input-delta","toolCallId":"\#(id)","inputTextDelta":"\#(escapedDelta)"}"#.utf8)
}

private let samplePieces: [String] = [
    "x", "\"", "\\", "/", "\n\t\r\u{08}\u{0C}", "é中😀", "", "a b c", "}", "{\"k\":[1,2]}",
    String(repeating: "long ", count: 60), "\u{7F}", "end\"",
]

/// Random pieces of a tool input: one to four characters, quotes, backslashes, controls, multi-byte.
private func randomPieces(count: Int, seed: UInt64) -> [String] {
    let alphabet: [String] = [
        "a", "b", " ", "\"", "\\", "/", "{", "}", "[", "]", ":", ",", "\n", "\t", "\u{01}", "é", "中", "😀", "\u{7F}",
    ]
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in
        (0...Int(generator.next() % 4)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
    }
}

@Suite struct PositionalDeltaTests {
    // MARK: UI message stream

    @Test(arguments: samplePieces)
    func uiUsualChunkGivesTheEventTheParserReads(piece: String) throws {
        for variant in [jsonEscaped(piece), jsonEscaped(piece, solidus: true)] {
            let bytes = uiChunk(variant)
            var dialect = UIMessageStreamDialect()
            var events: [StreamEvent] = []
            let read = try withUnit(bytes) { unit in
                try dialect.decodeToolInputDeltaByPosition(unit.data) { events.append($0) }
            }
            #expect(read, "\(variant)")
            #expect(events == [try parsedUIDelta(bytes)], "\(variant)")
            #expect(events == [.toolInputDelta(id: "call_1", delta: piece)])
        }
    }

    @Test(arguments: [
        // A `\u` escape, whitespace, another order, another member, bytes after the value.
        #"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"\u0041"}"#,
        #"{"type":"tool-input-delta", "toolCallId":"c","inputTextDelta":"x"}"#,
        #"{"type":"tool-input-delta","inputTextDelta":"x","toolCallId":"c"}"#,
        #"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"x","providerExecuted":true}"#,
        #"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"x"} "#,
        #"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"x"}{}"#,
        // Not a string, an escape in the ID, an invalid escape, unterminated, a cut unit.
        #"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":12345}"#,
        #"{"type":"tool-input-delta","toolCallId":"c\"d","inputTextDelta":"x"}"#,
        #"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"\x"}"#,
        #"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"x\"}"#,
        #"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"xyz"#,
        #"{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":""#,
        // A raw control character (and form feed) in the delta.
        "{\"type\":\"tool-input-delta\",\"toolCallId\":\"c\",\"inputTextDelta\":\"a\u{01}b\"}",
        "{\"type\":\"tool-input-delta\",\"toolCallId\":\"c\",\"inputTextDelta\":\"a\u{0C}b\"}",
    ])
    func uiOtherShapesAreLeftToTheGeneralPath(text: String) throws {
        try expectUIDeclines(Array(text.utf8))
    }

    @Test func uiIllFormedUTF8IsLeftToTheGeneralPath() throws {
        let head = Array(#"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"#.utf8)
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] {
            let bytes = head + [UInt8(ascii: "\"")] + bad + Array(#""}"#.utf8)
            try expectUIDeclines(bytes)
            let badID =
                Array(#"{"type":"tool-input-delta","toolCallId":""#.utf8) + bad
                + Array(#"","inputTextDelta":"x"}"#.utf8)
            try expectUIDeclines(badID)
        }
    }

    @Test func uiUnitsOverALimitAreLeftToTheGeneralPathAndFailThere() throws {
        let bytes = uiChunk("abcdefgh")
        for limits in [
            JSONConfiguration(maxStringBytes: 6), JSONConfiguration(maxDepth: 0),
            JSONConfiguration(maxValueBytes: 40),
        ] {
            let configuration = StreamDecoderConfiguration(json: limits)
            try expectUIDeclines(bytes, configuration: configuration)
            var decoder = StreamDecoder<UIMessageStreamDialect>(configuration: configuration)
            let stream = Array("data: ".utf8) + bytes + Array("\n\n".utf8)
            #expect(throws: StreamError.self) { _ = try decoder.decode(stream) }
        }
    }

    private func expectUIDeclines(
        _ bytes: [UInt8], configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) throws {
        var dialect = UIMessageStreamDialect(configuration: configuration)
        var events: [StreamEvent] = []
        let read = try withUnit(bytes) { unit in
            try dialect.decodeToolInputDeltaByPosition(unit.data) { events.append($0) }
        }
        #expect(!read, "\(String(decoding: bytes, as: UTF8.self))")
        #expect(events.isEmpty)
    }

    @Test func uiStreamDecodesAsTheGeneralPathAtEveryChunking() throws {
        // Random pieces, escaped three ways; the same stream with a space after each delta's
        // first comma is read only the general way. Events and the assembled input must agree.
        let pieces = randomPieces(count: 400, seed: 22)
        func stream(spaced: Bool) -> [UInt8] {
            var text = #"data: {"type":"start","messageId":"m"}"# + "\n\n"
            text += #"data: {"type":"tool-input-start","toolCallId":"call_1","toolName":"write"}"# + "\n\n"
            for (index, piece) in pieces.enumerated() {
                let delta = jsonEscaped(piece, solidus: index % 3 == 1, unicode: index % 7 == 3)
                let comma = spaced ? ", " : ","
                text += #"data: {"type":"tool-input-delta"\#(comma)"toolCallId":"call_1","inputTextDelta":"\#(delta)"}"#
                text += "\n\n"
            }
            text += #"data: {"type":"finish","finishReason":"tool-calls"}"# + "\n\ndata: [DONE]\n\n"
            return Array(text.utf8)
        }
        var general = StreamDecoder<UIMessageStreamDialect>()
        let expected = try general.decode(stream(spaced: true)) + general.finish()
        #expect(expected.filter { if case .toolInputDelta = $0 { true } else { false } }.count == pieces.count)
        let input = pieces.joined()
        for chunking in Chunkings.all(of: stream(spaced: false)) {
            var decoder = StreamDecoder<UIMessageStreamDialect>()
            var events: [StreamEvent] = []
            for piece in chunking.pieces { events += try decoder.decode(piece) }
            events += try decoder.finish()
            #expect(events == expected, "\(chunking)")
            var assembler = MessageAssembler()
            var joined = ""
            for event in events {
                assembler.apply(event)
                if case .toolInputDelta(_, let delta) = event { joined += delta }
            }
            #expect(joined == input, "\(chunking)")
        }
        // Every delta without a `\u` escape is read by position.
        var dialect = UIMessageStreamDialect()
        var byPosition = 0
        var withoutUnicodeEscape = 0
        for (index, piece) in pieces.enumerated() {
            let delta = jsonEscaped(piece, solidus: index % 3 == 1)
            if !delta.contains("\\u") { withoutUnicodeEscape += 1 }
            if try withUnit(uiChunk(delta), { try dialect.decodeToolInputDeltaByPosition($0.data) { _ in } }) {
                byPosition += 1
            }
        }
        #expect(withoutUnicodeEscape > pieces.count / 2)
        #expect(byPosition == withoutUnicodeEscape)
    }

    // MARK: Anthropic

    /// An Anthropic stream: a tool-use block at 0, a text block at 1, a tool-use block at 12,
    /// then `deltas` (block index, escaped partial JSON), then the blocks' stops and the end.
    private func anthropicStream(_ deltas: [(Int, String)], spaced: Bool = false) -> [UInt8] {
        func event(_ name: String, _ json: String) -> String { "event: \(name)\ndata: \(json)\n\n" }
        var text = event(
            "message_start",
            #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"#
                + #""usage":{"input_tokens":3,"output_tokens":1}}}"#)
        text += event(
            "content_block_start",
            #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"f","input":{}}}"#
        )
        text += event(
            "content_block_start",
            #"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#)
        text += event(
            "content_block_start",
            #"{"type":"content_block_start","index":12,"content_block":{"type":"tool_use","id":"toolu_b","name":"g","input":{}}}"#
        )
        for (index, delta) in deltas {
            let comma = spaced ? ", " : ","
            text += event(
                "content_block_delta",
                #"{"type":"content_block_delta"\#(comma)"index":\#(index),"delta":{"type":"input_json_delta","partial_json":"\#(delta)"}}"#
            )
        }
        for index in [0, 1, 12] {
            text += event("content_block_stop", #"{"type":"content_block_stop","index":\#(index)}"#)
        }
        text += event("message_stop", #"{"type":"message_stop"}"#)
        return Array(text.utf8)
    }

    @Test func anthropicStreamDecodesAsTheGeneralPathAtEveryChunking() throws {
        // Two tool-use blocks take turns in runs, so the block of the last delta changes now and
        // then (those deltas go the general way); the spaced stream goes the general way throughout.
        // Each block's input is JSON text (a string of random characters), sent in pieces of one
        // to four characters, each piece escaped for the wire.
        let firstText =
            #"{"path":"a.md","content":""# + jsonEscaped(randomPieces(count: 150, seed: 7).joined()) + #""}"#
        let secondText = #"{"q":[1,2,""# + jsonEscaped(randomPieces(count: 150, seed: 8).joined()) + #""]}"#
        func cut(_ text: String, seed: UInt64) -> [String] {
            var generator = SplitMix64(seed: seed)
            var pieces: [String] = []
            var rest = Substring(text)
            while !rest.isEmpty {
                let length = Int(generator.next() % 4) + 1
                pieces.append(String(rest.prefix(length)))
                rest = rest.dropFirst(length)
            }
            return pieces
        }
        var firstPieces = cut(firstText, seed: 1)[...]
        var secondPieces = cut(secondText, seed: 2)[...]
        var deltas: [(Int, String)] = []
        var number = 0
        while !firstPieces.isEmpty || !secondPieces.isEmpty {
            let block = (number / 25) % 2 == 0 ? 0 : 12
            let piece = block == 0 ? firstPieces.popFirst() : secondPieces.popFirst()
            if let piece {
                deltas.append((block, jsonEscaped(piece, solidus: number % 5 == 0, unicode: number % 11 == 4)))
            }
            number += 1
        }
        var general = StreamDecoder<AnthropicDialect>()
        let expected = try general.decode(anthropicStream(deltas, spaced: true)) + general.finish()
        #expect(
            expected.contains(
                .toolInputAvailable(id: "toolu_a", name: "f", input: try JSONParser().parseValue(firstText))))
        #expect(
            expected.contains(
                .toolInputAvailable(id: "toolu_b", name: "g", input: try JSONParser().parseValue(secondText))))
        for chunking in Chunkings.all(of: anthropicStream(deltas)) {
            var decoder = StreamDecoder<AnthropicDialect>()
            var events: [StreamEvent] = []
            for piece in chunking.pieces { events += try decoder.decode(piece) }
            events += try decoder.finish()
            #expect(events == expected, "\(chunking)")
        }
    }

    @Test func anthropicDeltaIsReadByPositionOnlyForTheToolBlockOfTheLastDelta() throws {
        var dialect = AnthropicDialect(configuration: StreamDecoderConfiguration())
        let setup = anthropicStream([])
        // The message and the three blocks' starts, through the dialect itself.
        var events: [StreamEvent] = []
        for unit in HandFraming.sse([setup]).prefix(4) {
            try withUnit(unit.data) { try dialect.decode($0) { events.append($0) } }
        }
        func byPosition(_ json: String) throws -> (Bool, [StreamEvent]) {
            var emitted: [StreamEvent] = []
            let read = try withUnit(Array(json.utf8)) { unit in
                try dialect.decodeBlockDeltaByPosition(unit.data, textDelta: { _, _ in }) { emitted.append($0) }
            }
            return (read, emitted)
        }
        let delta0 =
            #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\""}}"#
        // No delta yet: the block is looked up the general way first.
        #expect(try byPosition(delta0) == (false, []))
        try withUnit(Array(delta0.utf8)) { try dialect.decode($0) { events.append($0) } }
        #expect(events.last == .toolInputDelta(id: "toolu_a", delta: "{\""))
        #expect(try byPosition(delta0) == (true, [.toolInputDelta(id: "toolu_a", delta: "{\"")]))
        // Another block, a leading zero, a sign, a text block, an empty piece.
        let declined = [
            #"{"type":"content_block_delta","index":12,"delta":{"type":"input_json_delta","partial_json":"x"}}"#,
            #"{"type":"content_block_delta","index":00,"delta":{"type":"input_json_delta","partial_json":"x"}}"#,
            #"{"type":"content_block_delta","index":-0,"delta":{"type":"input_json_delta","partial_json":"x"}}"#,
            #"{"type":"content_block_delta","index":0.0,"delta":{"type":"input_json_delta","partial_json":"x"}}"#,
            #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\u0078"}}"#,
            #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"x","more":1}}"#,
            #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"x"}} "#,
        ]
        for json in declined {
            #expect(try byPosition(json) == (false, []), "\(json)")
        }
        #expect(
            try byPosition(
                #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}"#)
                == (true, []))
    }

    @Test func anthropicHostileDeltasFailAsTheGeneralPathSays() throws {
        // An input_json_delta for the text block: malformed, named as before.
        let deltas: [(Int, String)] = [(0, "{"), (1, "x")]
        var decoder = StreamDecoder<AnthropicDialect>()
        var spacedDecoder = StreamDecoder<AnthropicDialect>()
        let compact = #expect(throws: StreamError.self) { _ = try decoder.decode(anthropicStream(deltas)) }
        let spaced = #expect(throws: StreamError.self) {
            _ = try spacedDecoder.decode(anthropicStream(deltas, spaced: true))
        }
        #expect(compact?.message == spaced?.message)
        #expect(compact?.field == spaced?.field)
        #expect(compact?.message.contains("text block") == true)
    }

    // MARK: Text deltas

    @Test func uiTextDeltaIsLentAsTheParserReadsIt() throws {
        for piece in ["Hi", " world", "é中😀", "", "}{\u{7F}", String(repeating: "word ", count: 80)] {
            let bytes = Array(#"{"type":"text-delta","id":"t1","delta":"\#(piece)"}"#.utf8)
            var dialect = UIMessageStreamDialect()
            var lent: [String] = []
            let read = try withUnit(bytes) { unit in
                try dialect.decodeTextDeltaByPosition(unit.data) { id, text in lent.append(id + "|" + text.string) }
            }
            #expect(read, "\(piece)")
            let parsed = try JSONParser().parse(bytes) { root in
                (root["id"]?.string ?? "") + "|" + (root["delta"]?.string ?? "")
            }
            #expect(lent == [parsed])
            #expect(lent == ["t1|" + piece])
        }
        let declined = [
            #"{"type":"text-delta","id":"t1","delta":"a\nb"}"#,
            #"{"type":"text-delta","id":"t1","delta":"\u0041"}"#,
            #"{"type":"text-delta","id":"t\"1","delta":"x"}"#,
            #"{"type":"text-delta", "id":"t1","delta":"x"}"#,
            #"{"type":"text-delta","delta":"x","id":"t1"}"#,
            #"{"type":"text-delta","id":"t1","delta":"x","providerMetadata":{}}"#,
            #"{"type":"text-delta","id":"t1","delta":"x"} "#,
            #"{"type":"text-delta","id":"t1","delta":"xyz"#,
            #"{"type":"text-delta","id":1,"delta":"xyzzzzzzzzzzzzzz"}"#,
            "{\"type\":\"text-delta\",\"id\":\"t1\",\"delta\":\"a\u{01}b\"}",
        ]
        for text in declined {
            var dialect = UIMessageStreamDialect()
            var lent = 0
            let read = try withUnit(Array(text.utf8)) { unit in
                try dialect.decodeTextDeltaByPosition(unit.data) { _, _ in lent += 1 }
            }
            #expect(!read, "\(text)")
            #expect(lent == 0)
        }
    }

    @Test func uiTextStreamDecodesAsTheGeneralPathAtEveryChunking() throws {
        let pieces = randomPieces(count: 300, seed: 17)
        func stream(spaced: Bool) -> [UInt8] {
            var text = #"data: {"type":"start","messageId":"m"}"# + "\n\n"
            for (index, piece) in pieces.enumerated() {
                let id = index < 150 ? "t1" : "t2"
                let comma = spaced ? ", " : ","
                text += #"data: {"type":"text-delta"\#(comma)"id":"\#(id)","delta":"\#(jsonEscaped(piece))"}"# + "\n\n"
            }
            text += #"data: {"type":"finish","finishReason":"stop"}"# + "\n\ndata: [DONE]\n\n"
            return Array(text.utf8)
        }
        var general = StreamDecoder<UIMessageStreamDialect>()
        let expected = try general.decode(stream(spaced: true)) + general.finish()
        for chunking in Chunkings.all(of: stream(spaced: false)) {
            var decoder = StreamDecoder<UIMessageStreamDialect>()
            var events: [StreamEvent] = []
            for piece in chunking.pieces { events += try decoder.decode(piece) }
            events += try decoder.finish()
            #expect(events == expected, "\(chunking)")
            var lentDecoder = StreamDecoder<UIMessageStreamDialect>()
            var lent: [StreamEvent] = []
            for piece in chunking.pieces {
                try piece.withUnsafeBytes { bytes in try lentDecoder.decodeViews(bytes) { lent.append($0.owned) } }
            }
            try lentDecoder.finishViews { lent.append($0.owned) }
            #expect(lent == expected, "lent, \(chunking)")
        }
        var assembler = MessageAssembler()
        for event in expected { assembler.apply(event) }
        #expect(assembler.finish()[0].text == pieces.joined())
    }

    @Test func anthropicTextStreamDecodesAsTheGeneralPathAtEveryChunking() throws {
        // Text deltas to the text block (index 1), some with escapes (read the general way), and
        // tool-input deltas to the tool-use blocks in between.
        let pieces = randomPieces(count: 200, seed: 5)
        var deltas: [(Int, String, String)] = []
        for (number, piece) in pieces.enumerated() {
            if number % 40 == 39 {
                deltas.append((0, "input_json_delta\",\"partial_json", jsonEscaped(number == 39 ? "{}" : "")))
            }
            deltas.append((1, "text_delta\",\"text", jsonEscaped(piece)))
        }
        func stream(spaced: Bool) -> [UInt8] {
            func event(_ name: String, _ json: String) -> String { "event: \(name)\ndata: \(json)\n\n" }
            var text = event(
                "message_start",
                #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[]}}"#)
            text += event(
                "content_block_start",
                #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"f","input":{}}}"#
            )
            text += event(
                "content_block_start",
                #"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#)
            for (index, type, delta) in deltas {
                let comma = spaced ? ", " : ","
                text += event(
                    "content_block_delta",
                    #"{"type":"content_block_delta"\#(comma)"index":\#(index),"delta":{"type":"\#(type)":"\#(delta)"}}"#
                )
            }
            for index in [0, 1] {
                text += event("content_block_stop", #"{"type":"content_block_stop","index":\#(index)}"#)
            }
            text += event("message_stop", #"{"type":"message_stop"}"#)
            return Array(text.utf8)
        }
        var general = StreamDecoder<AnthropicDialect>()
        let expected = try general.decode(stream(spaced: true)) + general.finish()
        var assembler = MessageAssembler()
        for event in expected { assembler.apply(event) }
        #expect(assembler.finish()[0].text == pieces.joined())
        for chunking in Chunkings.all(of: stream(spaced: false)) {
            var decoder = StreamDecoder<AnthropicDialect>()
            var events: [StreamEvent] = []
            for piece in chunking.pieces { events += try decoder.decode(piece) }
            events += try decoder.finish()
            #expect(events == expected, "\(chunking)")
        }
    }

    @Test func v4TextPartsDecodeAsTheGeneralPathAtEveryChunking() throws {
        // `0:"…"` without escapes is read by position; with escapes, ill-formed UTF-8 or a space
        // after the colon (the spaced copy throughout) it is parsed.
        let pieces = randomPieces(count: 300, seed: 4)
        func stream(spaced: Bool) -> [UInt8] {
            var bytes = Array(#"f:{"messageId":"m"}"#.utf8) + [0x0A]
            for piece in pieces { bytes += Array("0:\(spaced ? " " : "")\"\(jsonEscaped(piece))\"\n".utf8) }
            bytes +=
                Array(#"e:{"finishReason":"stop"}"#.utf8) + [0x0A] + Array(#"d:{"finishReason":"stop"}"#.utf8) + [0x0A]
            return bytes
        }
        var general = StreamDecoder<DataStreamV4Dialect>()
        let expected = try general.decode(stream(spaced: true)) + general.finish()
        var assembler = MessageAssembler()
        for event in expected { assembler.apply(event) }
        #expect(assembler.finish()[0].text == pieces.joined())
        for chunking in Chunkings.all(of: stream(spaced: false)) {
            var decoder = StreamDecoder<DataStreamV4Dialect>()
            var events: [StreamEvent] = []
            for piece in chunking.pieces { events += try decoder.decode(piece) }
            events += try decoder.finish()
            #expect(events == expected, "\(chunking)")
        }
        let limits = JSONConfiguration()
        for (text, read) in [
            (#""Hi""#, "Hi"), (#""é中😀""#, "é中😀"), (#""""#, ""),
        ] {
            let got = Array(text.utf8).withUnsafeBytes {
                DataStreamV4Dialect.plainTextPart($0, limits).map { String(decoding: $0, as: UTF8.self) }
            }
            #expect(got == read)
        }
        for text in [#""a\nb""#, #" "x""#, #""x" "#, #""x"#, #""#, "\"a\u{01}\"", #"12"#, #""x""y""#] {
            let got = Array(text.utf8).withUnsafeBytes { DataStreamV4Dialect.plainTextPart($0, limits) }
            #expect(got == nil, "\(text)")
        }
        let bad: [UInt8] = [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")]
        #expect(bad.withUnsafeBytes { DataStreamV4Dialect.plainTextPart($0, limits) } == nil)
        #expect(
            Array(#""abcdef""#.utf8).withUnsafeBytes {
                DataStreamV4Dialect.plainTextPart($0, JSONConfiguration(maxStringBytes: 4))
            } == nil)
    }
}
