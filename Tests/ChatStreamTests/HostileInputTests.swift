// Hostile inputs: each must end in a clear error or a documented tolerant result, never a trap,
// a hang or unbounded memory. Sizes are chosen so the whole suite stays fast in debug builds;
// memory bounds are checked through the decoders' `bufferedByteCount` rather than RSS.

@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@_spi(Dialects) @testable import ChatStream

@Suite(.blockingAllowed) struct HostileInputTests {
    // MARK: - Helpers

    struct Decoded {
        var events: [StreamEvent] = []
        var error: StreamError?
        var message: AssembledMessage
    }

    /// Decodes a UI message stream given as pieces, and assembles it.
    static func decodeUI(_ pieces: [[UInt8]], configuration: StreamDecoderConfiguration = .init()) -> Decoded {
        var decoder = StreamDecoder<UIMessageStreamDialect>(configuration: configuration)
        var events: [StreamEvent] = []
        var failure: StreamError?
        do {
            for piece in pieces { events += try decoder.feed(piece) }
            events += try decoder.finish()
        } catch let error as StreamError {
            failure = error
        } catch {
            Issue.record("unexpected error type \(error)")
        }
        var assembler = MessageAssembler()
        for event in events { assembler.apply(event) }
        return Decoded(events: events, error: failure, message: assembler.finish(error: failure)[0])
    }

    static func sse(_ chunks: [String]) -> [UInt8] {
        Array(chunks.map { "data: \($0)\n\n" }.joined().utf8) + Array("data: [DONE]\n\n".utf8)
    }

    static func textDelta(_ text: String) -> String {
        var json: [UInt8] = []
        JSONTree.writeString(text, to: &json)
        return #"{"type":"text-delta","id":"t","delta":"# + String(decoding: json, as: UTF8.self) + "}"
    }

    // MARK: - Size limits

    @Test func endlessLineFailsAtTheLineLimitWithBoundedBuffer() throws {
        var decoder = ServerSentEventDecoder()
        let limit = decoder.configuration.maxLineBytes
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 16)
        var fed = 0
        var failure: FramingError?
        try Array("data: ".utf8).withUnsafeBytes { try decoder.feed($0) { _ in Issue.record("no event expected") } }
        // Up to 1 GiB, generated on the fly; the decoder must give up long before.
        while fed < 1 << 30 {
            do {
                try chunk.withUnsafeBytes { try decoder.feed($0) { _ in } }
            } catch let error as FramingError {
                failure = error
                break
            }
            fed += chunk.count
            #expect(decoder.bufferedByteCount <= limit)
        }
        #expect(failure?.kind == .lineTooLong)
        #expect(fed <= limit + chunk.count)
        #expect(failure?.byteOffset == limit)
    }

    @Test func endlessLineInEveryLineFramingFailsEarly() throws {
        let chunk = [UInt8](repeating: UInt8(ascii: "7"), count: 1 << 16)
        let limit = 1 << 20
        var ndjson = NDJSONDecoder(configuration: .init(maxLineBytes: limit))
        var v4 = DataStreamV4Decoder(configuration: .init(maxLineBytes: limit))
        var ndjsonError: FramingError?
        var v4Error: FramingError?
        for _ in 0..<((1 << 30) / chunk.count) {
            do { _ = try ndjson.feed(chunk) } catch let error as FramingError { ndjsonError = error }
            do { _ = try v4.feed(chunk) } catch let error as FramingError { v4Error = error }
            #expect(ndjson.bufferedByteCount <= limit && v4.bufferedByteCount <= limit)
            if ndjsonError != nil && v4Error != nil { break }
        }
        #expect(ndjsonError?.kind == .lineTooLong)
        #expect(v4Error?.kind == .lineTooLong)
    }

    @Test func endlessLineThroughTheStreamDecoderIsALimitError() throws {
        var configuration = StreamDecoderConfiguration()
        configuration.json.maxValueBytes = 1 << 20
        var decoder = StreamDecoder<UIMessageStreamDialect>(configuration: configuration)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 16)
        var failure: StreamError?
        _ = try decoder.feed(Array(#"data: {"type":"text-delta","delta":""#.utf8))
        for _ in 0..<((1 << 30) / chunk.count) {
            do { _ = try decoder.feed(chunk) } catch let error as StreamError {
                failure = error
                break
            }
        }
        #expect(failure?.kind == .limitExceeded)
        #expect((failure?.byteOffset ?? .max) <= (1 << 20) + chunk.count)
    }

    @Test func millionNestedArraysHitTheDepthLimitEverywhere() throws {
        let depth = 1_000_000
        let text =
            [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)

        let error = #expect(throws: JSONError.self) { try JSONParser().parseValue(text) }
        #expect(error?.kind == .depthLimitExceeded)

        var partial = PartialJSONParser()
        let partialError = #expect(throws: PartialJSONError.self) { try partial.append(text) }
        #expect(partialError?.kind == .depthLimitExceeded)

        var framer = JSONArrayElementFramer()
        let framerError = #expect(throws: FramingError.self) { _ = try framer.feed(text) }
        #expect(framerError?.kind == .depthLimitExceeded)

        let decoded = Self.decodeUI([Array("data: ".utf8) + text + Array("\n\n".utf8)])
        #expect(decoded.error?.kind == .limitExceeded)
    }

    @Test func hundredMegabyteStringIsRefusedByDefault() throws {
        var text = [UInt8](repeating: UInt8(ascii: "a"), count: 100 << 20)
        text[0] = UInt8(ascii: "\"")
        text[text.count - 1] = UInt8(ascii: "\"")
        let error = #expect(throws: JSONError.self) { try JSONParser().parseValue(text) }
        #expect(error?.kind == .valueTooLarge)
    }

    @Test func stringAtTheLimitParsesAndOneMoreByteDoesNot() throws {
        let limit = 1 << 20
        let configuration = JSONConfiguration(maxValueBytes: 4 << 20, maxStringBytes: limit)
        let atLimit = Array(#"""#.utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: limit) + Array(#"""#.utf8)
        let value = try JSONParser(configuration: configuration).parseValue(atLimit)
        #expect(value.stringValue?.utf8.count == limit)

        let over = Array(#"""#.utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: limit + 1) + Array(#"""#.utf8)
        let error = #expect(throws: JSONError.self) { try JSONParser(configuration: configuration).parseValue(over) }
        #expect(error?.kind == .stringTooLong)
    }

    // MARK: - Bytes that are not what they claim

    @Test(
        arguments: [
            [0xC0, 0x80],  // overlong NUL
            [0xE0, 0x80, 0xAF],  // overlong '/'
            [0xF0, 0x80, 0x80, 0xAF],  // overlong, four bytes
            [0xED, 0xA0, 0x80],  // encoded surrogate
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xFF], [0x80], [0xE2, 0x82],  // invalid, stray continuation, truncated
        ] as [[UInt8]])
    func invalidUTF8InAJSONStringIsAnError(_ bad: [UInt8]) throws {
        let text = Array(#"{"delta":"a"#.utf8) + bad + Array(#"b"}"#.utf8)
        // yajl's lexer already rejects some malformed sequences (a syntax error); what it lets
        // through (overlongs, encoded surrogates, above U+10FFFF) is caught as invalidUTF8.
        let error = #expect(throws: JSONError.self) { try JSONParser().parseValue(text) }
        #expect(error?.kind == .invalidUTF8 || error?.kind == .syntax)
        if bad.count > 1 && bad != [0xE2, 0x82] { #expect(error?.kind == .invalidUTF8) }

        var partial = PartialJSONParser()
        #expect(throws: PartialJSONError.self) {
            try partial.append(text)
            _ = try partial.finish()
        }

        let stream =
            Array("data: ".utf8) + Array(#"{"type":"text-delta","delta":"a"#.utf8) + bad
            + Array("b\"}\n\ndata: [DONE]\n\n".utf8)
        let decoded = Self.decodeUI([stream])
        #expect(decoded.error?.kind == .malformed)
        // Lenient mode skips that chunk and keeps going.
        let lenient = Self.decodeUI([stream], configuration: StreamDecoderConfiguration(lenient: true))
        #expect(lenient.error == nil)
        #expect(lenient.message.text == "")
    }

    @Test func invalidUTF8InSSEFieldsIsRepairedInOwnedEvents() throws {
        var decoder = ServerSentEventDecoder()
        let events = try decoder.feed([UInt8]("data: a".utf8) + [0xC0, 0x80, 0xFF] + Array("b\n\n".utf8))
        #expect(events == [ServerSentEvent(data: "a\u{FFFD}\u{FFFD}\u{FFFD}b")])
    }

    @Test func utf8SplitAtEveryPositionKeepsTheText() throws {
        let pieces = ["héllo ", "🌍 世界", " ünïcødé ", "𝄞"]
        let expected = pieces.joined()
        let stream = Self.sse(pieces.map(Self.textDelta))
        for cut in 0...stream.count {
            for secondCut in [cut, min(stream.count, cut + 1), min(stream.count, cut + 2)] {
                let decoded = Self.decodeUI([
                    Array(stream[..<cut]), Array(stream[cut..<secondCut]), Array(stream[secondCut...]),
                ])
                #expect(decoded.error == nil)
                #expect(decoded.message.text == expected, "cut at \(cut), \(secondCut)")
            }
        }
    }

    @Test func nulBytes() throws {
        // A raw NUL inside a JSON string is a control character: an error.
        let raw = Array(#"{"a":""#.utf8) + [0] + Array(#""}"#.utf8)
        #expect(throws: JSONError.self) { try JSONParser().parseValue(raw) }
        // The escape is fine and the NUL survives, in values and keys.
        let escaped = try JSONParser().parseValue(Array(#"{"k\u0000ey":"a\u0000b"}"#.utf8))
        #expect(escaped["k\u{0}ey"] == "a\u{0}b")
        // A NUL in SSE data passes through framing untouched.
        var decoder = ServerSentEventDecoder()
        #expect(
            try decoder.feed(Array("data: x".utf8) + [0] + Array("y\n\n".utf8)) == [ServerSentEvent(data: "x\u{0}y")])
        // Through the pipeline, an escaped NUL reaches the text intact.
        let decoded = Self.decodeUI([Self.sse([Self.textDelta("a\u{0}b")])])
        #expect(decoded.message.text == "a\u{0}b")
    }

    // MARK: - Numbers and keys

    @Test func extremeNumbers() throws {
        let parser = JSONParser()
        #expect(try parser.parseValue("-9223372036854775808".utf8).int64Value == Int64.min)
        #expect(try parser.parseValue("9223372036854775807".utf8).int64Value == Int64.max)
        let above = try parser.parseValue("9223372036854775808".utf8)
        #expect(above.int64Value == nil)
        #expect(above.doubleValue == 9_223_372_036_854_775_808.0)

        let digits = "7" + String(repeating: "3", count: 399)
        let huge = try parser.parseValue(digits.utf8)
        #expect(huge.int64Value == nil)
        #expect(huge.doubleValue == Double(digits))
        // The literal survives serialization.
        #expect(huge.jsonText == digits)
        let negativeHuge = try parser.parseValue(("-" + digits).utf8)
        #expect(negativeHuge.doubleValue == -Double(digits)!)
        #expect(try parser.parseValue("1e400".utf8).doubleValue == .infinity)
        #expect(try parser.parseValue(("[0." + digits + "]").utf8)[0]?.doubleValue == Double("0." + digits))
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        let text = Array(#"{"a":1,"b":2,"a":3}"#.utf8)
        let parser = JSONParser()
        #expect(try parser.parse(text) { $0["a"]?.int } == 3)
        let tree = try parser.parseValue(text)
        #expect(tree["a"] == 3)
        #expect(tree.objectValue?.count == 2)

        let decoded = Self.decodeUI([Self.sse([#"{"type":"text-delta","delta":"first","delta":"second"}"#])])
        #expect(decoded.message.text == "second")
    }

    // MARK: - Events out of order

    @Test func toolInputDeltaForACallThatNeverStartedIsKept() throws {
        let decoded = Self.decodeUI([
            Self.sse([
                #"{"type":"tool-input-delta","toolCallId":"ghost","inputTextDelta":"{\"q\":"}"#,
                #"{"type":"tool-input-delta","toolCallId":"ghost","inputTextDelta":"\"x\"}"}"#,
            ])
        ])
        #expect(decoded.error == nil)
        // Documented: the call is kept under an empty tool name, its input parsed so far.
        #expect(decoded.message.toolCalls.count == 1)
        #expect(decoded.message.toolCalls.first?.toolName == "")
        #expect(decoded.message.toolCalls.first?.input == ["q": "x"])
        #expect(decoded.message.toolCalls.first?.state == .streaming)
    }

    @Test func toolResultForAnUnknownCallIsKept() throws {
        let decoded = Self.decodeUI([
            Self.sse([#"{"type":"tool-output-available","toolCallId":"nobody","output":{"ok":true}}"#])
        ])
        #expect(decoded.error == nil)
        // Documented: a result part with an empty tool name; no tool call is invented.
        #expect(decoded.message.toolCalls.isEmpty)
        #expect(
            decoded.message.parts == [
                .toolResult(ToolResultPart(toolCallId: "nobody", toolName: "", output: ["ok": true]))
            ])
    }

    @Test func secondMessageStartDoesNotReplaceTheFirstID() throws {
        let decoded = Self.decodeUI([
            Self.sse([
                #"{"type":"start","messageId":"m1"}"#, Self.textDelta("a"), #"{"type":"start","messageId":"m2"}"#,
                Self.textDelta("b"),
            ])
        ])
        #expect(decoded.error == nil)
        #expect(decoded.message.id == "m1")
        #expect(decoded.message.text == "ab")
    }

    static func anthropic(_ events: [(String, String)]) -> [UInt8] {
        Array(events.map { "event: \($0.0)\ndata: \($0.1)\n\n" }.joined().utf8)
    }

    static func decode<D: StreamDialect>(_ type: D.Type, _ bytes: [UInt8]) -> ([StreamEvent], StreamError?) {
        var decoder = StreamDecoder<D>()
        var events: [StreamEvent] = []
        do {
            events += try decoder.feed(bytes)
            events += try decoder.finish()
            return (events, nil)
        } catch {
            return (events, error as? StreamError)
        }
    }

    @Test func anthropicDuplicateMessageStartIsIgnoredAndANewOneStartsAMessage() throws {
        let start = #"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":1}}}"#
        let block = #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
        let delta = #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#
        let stop = #"{"type":"content_block_stop","index":0}"#
        let messageStop = #"{"type":"message_stop"}"#
        // The same ID twice before any block: a duplicate, ignored.
        let duplicate = Self.decode(
            AnthropicDialect.self,
            Self.anthropic([
                ("message_start", start), ("message_start", start), ("content_block_start", block),
                ("content_block_delta", delta), ("content_block_stop", stop), ("message_stop", messageStop),
            ]))
        #expect(duplicate.1 == nil)
        #expect(duplicate.0.filter { if case .messageStart = $0 { true } else { false } }.count == 1)
        // A different message_start in the middle of a block: the block is closed, a new message begins.
        let second = #"{"type":"message_start","message":{"id":"msg_2","usage":{}}}"#
        let spliced = Self.decode(
            AnthropicDialect.self,
            Self.anthropic([
                ("message_start", start), ("content_block_start", block), ("content_block_delta", delta),
                ("message_start", second), ("content_block_start", block), ("content_block_delta", delta),
                ("content_block_stop", stop), ("message_stop", messageStop),
            ]))
        #expect(spliced.1 == nil)
        #expect(spliced.0.contains(.messageStart(id: "msg_2")))
        var assembler = MessageAssembler()
        for event in spliced.0 { assembler.apply(event) }
        let message = assembler.finish()[0]
        #expect(message.id == "msg_1")
        #expect(message.text == "HiHi")
    }

    /// Events for `count` tool calls streamed in parallel: every start, then every input delta.
    static func parallelToolCallEvents(_ count: Int) -> [StreamEvent] {
        (0..<count).map { .toolCallStart(id: "c\($0)", name: "t", providerExecuted: false) }
            + (0..<count).map { .toolInputDelta(id: "c\($0)", delta: #"{"i":\#($0)}"#) }
    }

    @Test func hundredThousandParallelToolCallsAssembleInLinearTime() throws {
        let clock = ContinuousClock()
        func assemble(_ count: Int) -> (Duration, AssembledMessage) {
            let events = Self.parallelToolCallEvents(count)
            var assembler = MessageAssembler()
            let elapsed = clock.measure { for event in events { assembler.apply(event) } }
            return (elapsed, assembler.finish()[0])
        }
        // The faster of two runs each, so one slow moment on a shared machine does not decide.
        let small = min(assemble(10_000).0, assemble(10_000).0)
        let (firstLarge, message) = assemble(100_000)
        let large = min(firstLarge, assemble(100_000).0)
        #expect(message.toolCalls.count == 100_000)
        #expect(message.toolCalls.last?.input == ["i": .number(JSONNumber(99_999))])
        #expect(message.toolCalls.allSatisfy { $0.state == .streaming && $0.toolName == "t" })
        // Linear: ten times the calls may cost ten times the time, plus noise; quadratic would be 100x.
        #expect(large < small * 40 + .milliseconds(500), "10k: \(small), 100k: \(large)")
        #expect(large < .seconds(30), "took \(large)")
    }

    @Test func manyParallelToolCallsThroughTheWholePipeline() throws {
        // The decoder costs ~0.1 ms per event in debug builds, so the end-to-end run uses 20,000
        // calls (40,000 events); the assembler test above covers 100,000.
        let count = 20_000
        var stream: [UInt8] = []
        stream.reserveCapacity(count * 200)
        for i in 0..<count {
            stream += Array(#"data: {"type":"tool-input-start","toolCallId":"c\#(i)","toolName":"t"}"#.utf8) + [10, 10]
        }
        for i in 0..<count {
            stream +=
                Array(#"data: {"type":"tool-input-delta","toolCallId":"c\#(i)","inputTextDelta":"{\"i\":\#(i)}"}"#.utf8)
                + [10, 10]
        }
        stream += Array("data: [DONE]\n\n".utf8)
        let decoded = Self.decodeUI(Chunkings.random(stream, seed: 7, empties: false))
        #expect(decoded.error == nil)
        #expect(decoded.events.count == 2 * count + 1)
        #expect(decoded.message.toolCalls.count == count)
        #expect(decoded.message.toolCalls.last?.input == ["i": .number(JSONNumber(count - 1))])
    }
}
