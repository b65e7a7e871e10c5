// MessageDecoder against its oracle: the same bytes through StreamDecoder and MessageAssembler,
// event by event, at every chunking. The fixtures, the recorded captures of the home protocol,
// OpenAI chat and Anthropic (each through its byte path), hand-written streams that move between
// parts, failures mid-stream, and the default event path of a dialect without a byte path. The
// other dialects' byte paths are in MessageDecoderBytePathTests.swift, which uses this file's
// helpers.

@_spi(Dialects) import ChatStreamFraming
import Foundation
import TestSupport
import Testing

@_spi(Dialects) @testable import ChatStream

/// The messages and error of `pieces` decoded event by event (the oracle).
private func eventByEvent<Dialect: StreamDialect>(
    _ dialect: Dialect.Type, _ pieces: [[UInt8]], configuration: StreamDecoderConfiguration = .init()
) -> (messages: [AssembledMessage], failure: StreamError?) {
    var decoder = StreamDecoder<Dialect>(configuration: configuration)
    return assembleEventByEvent(&decoder, pieces)
}

/// The messages and error of `pieces` through a MessageDecoder, stopping at the first error.
func throughMessageDecoder<Dialect: StreamDialect>(
    _ dialect: Dialect.Type, _ pieces: [[UInt8]], configuration: StreamDecoderConfiguration = .init()
) -> (messages: [AssembledMessage], failure: StreamError?) {
    var decoder = MessageDecoder<Dialect>(configuration: configuration)
    for piece in pieces {
        do { try decoder.feed(piece) } catch { break }
    }
    return (decoder.finish(), decoder.failure)
}

/// Expects the MessageDecoder to give exactly the oracle's messages and error at every chunking.
func expectSameAsEventByEvent<Dialect: StreamDialect>(
    _ dialect: Dialect.Type, _ input: [UInt8], _ label: String,
    configuration: StreamDecoderConfiguration = .init(), sourceLocation: SourceLocation = #_sourceLocation
) {
    let expected = eventByEvent(dialect, [input], configuration: configuration)
    for chunking in Chunkings.all(of: input) {
        let result = throughMessageDecoder(dialect, chunking.pieces, configuration: configuration)
        #expect(result.messages == expected.messages, "\(label) \(chunking)", sourceLocation: sourceLocation)
        #expect(result.failure == expected.failure, "\(label) \(chunking)", sourceLocation: sourceLocation)
    }
}

private func sse(_ chunks: [String]) -> [UInt8] {
    Array(chunks.map { "data: \($0)\n\n" }.joined().utf8)
}

@Suite(.blockingAllowed) struct MessageDecoderTests {
    static let fixtures = ProjectPaths.fixtures + "/ui-message-stream"
    static let captures = ProjectPaths.shared + "/captures"
    static let fixtureNames: [String] = {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures)) ?? [])
            .filter { $0.hasSuffix(".sse") }.map { String($0.dropLast(4)) }.sorted()
    }()

    static func captureFiles(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: captures + "/" + folder)) ?? [])
            .filter { $0.hasSuffix(".sse") }.sorted()
    }

    static func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    // MARK: - Against the oracle

    @Test func fixturesAndCapturesArePresent() {
        #expect(Self.fixtureNames.count >= 12)
        #expect(Self.captureFiles("vercel-ai-ui-message-stream").count >= 3)
        #expect(Self.captureFiles("openai-python-chat-completions").count >= 10)
        #expect(Self.captureFiles("anthropic-sdk").count >= 10)
    }

    @Test(arguments: fixtureNames)
    func fixtureGivesTheEventByEventMessagesAtEveryChunking(_ name: String) throws {
        let input = try Self.read(Self.fixtures + "/\(name).sse")
        expectSameAsEventByEvent(UIMessageStreamDialect.self, input, name)
    }

    @Test func fixturesStillMatchTheirExpectedOutput() throws {
        // The oracle itself is pinned by the golden files, so the two cannot drift together.
        for name in Self.fixtureNames {
            let input = try Self.read(Self.fixtures + "/\(name).sse")
            let expected = try String(contentsOfFile: Self.fixtures + "/\(name).expected.json", encoding: .utf8)
                .split(separator: "\n").map(String.init)
            let result = throughMessageDecoder(UIMessageStreamDialect.self, [input])
            #expect(result.messages.map(\.jsonValue.jsonText) == expected, "\(name)")
        }
    }

    @Test func uiMessageStreamCapturesMatch() throws {
        for file in Self.captureFiles("vercel-ai-ui-message-stream") {
            let input = try Self.read(Self.captures + "/vercel-ai-ui-message-stream/" + file)
            expectSameAsEventByEvent(UIMessageStreamDialect.self, input, file)
        }
    }

    @Test func openAIAndAnthropicCapturesMatchThroughTheirBytePaths() throws {
        for file in Self.captureFiles("openai-python-chat-completions") {
            let input = try Self.read(Self.captures + "/openai-python-chat-completions/" + file)
            expectSameAsEventByEvent(OpenAIChatDialect.self, input, file)
        }
        for file in Self.captureFiles("anthropic-sdk") {
            let input = try Self.read(Self.captures + "/anthropic-sdk/" + file)
            expectSameAsEventByEvent(AnthropicDialect.self, input, file)
        }
    }

    @Test func partsThatInterleaveStayApartAndInOrder() {
        let input = sse([
            #"{"type":"start","messageId":"m1"}"#,
            #"{"type":"text-start","id":"a"}"#,
            #"{"type":"text-delta","id":"a","delta":"Hel"}"#,
            #"{"type":"text-delta","id":"a","delta":"lo "}"#,
            #"{"type":"text-delta","id":"b","delta":"other"}"#,
            #"{"type":"text-delta","id":"a","delta":"again"}"#,
            #"{"type":"text-delta","delta":"no id"}"#,
            #"{"type":"text-delta","id":"a","delta":""}"#,
            #"{"type":"reasoning-delta","id":"r","delta":"think"}"#,
            #"{"type":"text-delta","id":"a","delta":"caf\u00e9 \ud83d\ude00 \"q\""}"#,
            #"{"type":"text-delta","id":"a","delta":"\ud800 lone"}"#,
            #"{"type":"tool-input-start","toolCallId":"c1","toolName":"t"}"#,
            #"{"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"{\"x\":1}"}"#,
            #"{"type":"text-delta","id":"a","delta":"after the tool"}"#,
            #"{"type":"text-end","id":"a"}"#,
            #"{"type":"finish","finishReason":"stop"}"#,
            "[DONE]",
        ])
        expectSameAsEventByEvent(UIMessageStreamDialect.self, input, "interleaved")
        let message = throughMessageDecoder(UIMessageStreamDialect.self, [input]).messages[0]
        // a, b, a, text-0, a (opened by the empty delta), reasoning, a, the tool call, a.
        #expect(message.parts.count == 9)
        #expect(message.text.hasPrefix("Hello otheragain"))
        #expect(message.text.contains("café 😀 \"q\""))
        #expect(message.text.contains("\u{FFFD} lone"))
    }

    @Test func deltasLongerThanTheGatheringBufferAndAfterIt() {
        // One delta far longer than the buffer keeps as free space, then short ones after it.
        let long = String(repeating: "0123456789abcdef", count: (3 * PendingText.limit) / 16 + 7)
        var chunks = [#"{"type":"text-delta","id":"a","delta":"\#(long)"}"#]
        for i in 0..<200 {
            chunks.append(#"{"type":"text-delta","id":"\#(i % 3 == 0 ? "b" : "a")","delta":"d\#(i) "}"#)
        }
        chunks.append(#"{"type":"text-delta","id":"a","delta":"\#(long)"}"#)
        chunks.append("[DONE]")
        let input = sse(chunks)
        let expected = eventByEvent(UIMessageStreamDialect.self, [input])
        for pieces in [[input], Chunkings.random(input, seed: 9, empties: true)] {
            let result = throughMessageDecoder(UIMessageStreamDialect.self, pieces)
            #expect(result.messages == expected.messages)
            #expect(result.failure == nil)
        }
        #expect(expected.messages[0].text.utf8.count > 6 * PendingText.limit)
    }

    // MARK: - Reading mid-stream

    @Test func messageReadAfterEveryByteEqualsTheAssemblersSnapshot() throws {
        for name in ["several-text-parts", "tool-round-trip", "reasoning", "multibyte"] {
            let input = try Self.read(Self.fixtures + "/\(name).sse")
            var decoder = MessageDecoder<UIMessageStreamDialect>()
            var events = StreamDecoder<UIMessageStreamDialect>()
            var assembler = MessageAssembler()
            for byte in input {
                try decoder.feed([byte])
                try events.feed([byte], into: &assembler)
                #expect(decoder.message() == assembler.message, "\(name)")
            }
            try events.finish(into: &assembler)
            #expect(decoder.finish() == assembler.finish())
        }
    }

    // MARK: - Failures keep what arrived

    @Test func malformedEventStopsDecodingAndKeepsTheTextBeforeIt() {
        let input = sse([
            #"{"type":"text-delta","id":"a","delta":"kept"}"#,
            #"{"type":"text-delta","id":"a","delta":"also kept"}"#,
            #"{"type":"text-delta","id":"a","delta":"bad\x"}"#,
            #"{"type":"text-delta","id":"a","delta":"never"}"#,
            "[DONE]",
        ])
        var decoder = MessageDecoder<UIMessageStreamDialect>()
        #expect(throws: StreamError.self) { try decoder.feed(input) }
        let failure = decoder.failure
        #expect(failure?.kind == .malformed)
        #expect(failure?.byteOffset ?? 0 > 100)
        #expect(throws: StreamError.self) { try decoder.feed(Array("data: {}\n\n".utf8)) }
        let messages = decoder.finish()
        #expect(messages[0].text == "keptalso kept")
        #expect(messages[0].error?.message.contains(failure?.message ?? "?") == true)
        #expect(decoder.finish() == messages)
        expectSameAsEventByEvent(UIMessageStreamDialect.self, input, "malformed")
    }

    @Test func truncatedStreamIsReportedAtFinishWithItsText() {
        let input = sse([
            #"{"type":"text-delta","id":"a","delta":"cut "}"#, #"{"type":"text-delta","id":"a","delta":"here"}"#,
        ])
        var decoder = MessageDecoder<UIMessageStreamDialect>()
        #expect(throws: Never.self) { try decoder.feed(input) }
        #expect(decoder.failure == nil)
        let messages = decoder.finish()
        #expect(decoder.failure?.kind == .truncated)
        #expect(messages[0].text == "cut here")
        #expect(messages[0].error != nil)
        #expect(messages[0].isFinished)
    }

    @Test func lenientModeSkipsTheBadEventAndGoesOn() {
        let input = sse([
            #"{"type":"text-delta","id":"a","delta":"one "}"#,
            #"{"type":"text-delta","id":"a"}"#,
            #"{"type":"text-delta","id":"a","delta":"two"}"#,
            "[DONE]",
        ])
        let lenient = StreamDecoderConfiguration(lenient: true)
        var decoder = MessageDecoder<UIMessageStreamDialect>(configuration: lenient)
        #expect(throws: Never.self) { try decoder.feed(input) }
        #expect(decoder.finish()[0].text == "one two")
        #expect(decoder.skippedErrors.count == 1)
        #expect(decoder.skippedErrors.first?.field == "delta")
        #expect(decoder.failure == nil)
        expectSameAsEventByEvent(UIMessageStreamDialect.self, input, "lenient", configuration: lenient)
    }

    // MARK: - The dialect's byte path

    @Test func uiDialectHandsTextDeltasOverAsBytesAndEverythingElseAsEvents() throws {
        var dialect = UIMessageStreamDialect()
        var deltas: [(String, String)] = []
        var events: [StreamEvent] = []
        for data in [
            #"{"type":"text-delta","id":"x","delta":"h\u00e9"}"#, #"{"type":"text-delta","delta":"y"}"#,
            #"{"type":"text-end","id":"x"}"#,
        ] {
            let bytes = Array(data.utf8)
            try bytes.withUnsafeBytes { raw in
                let unit = FramedUnit(type: UnsafeRawBufferPointer(start: nil, count: 0), data: raw, streamOffset: 0)
                var sink = RecordingSink()
                try dialect.decode(unit, into: &sink)
                deltas += sink.deltas.map {
                    ($0.prefix { $0 != "|" }.description, $0.drop { $0 != "|" }.dropFirst().description)
                }
                events += sink.events
            }
        }
        #expect(deltas.map(\.0) == ["x", UIMessageStreamDialect.defaultTextPartID])
        #expect(deltas.map(\.1) == ["hé", "y"])
        #expect(events == [.textEnd(id: "x")])
    }

    /// Decodes `data` as one unit through the byte path; returns the deltas and the events.
    private func bytePath<Dialect: StreamDialect>(
        _ dialect: inout Dialect, _ data: String, type: String = ""
    ) throws -> (deltas: [String], events: [StreamEvent]) {
        var deltas: [String] = []
        var events: [StreamEvent] = []
        let bytes = Array(data.utf8)
        let typeBytes = Array(type.utf8)
        try bytes.withUnsafeBytes { raw in
            try typeBytes.withUnsafeBytes { typeRaw in
                let unit = FramedUnit(type: typeRaw, data: raw, streamOffset: 0)
                var sink = RecordingSink()
                try dialect.decode(unit, into: &sink)
                deltas = sink.deltas
                events = sink.events
            }
        }
        return (deltas, events)
    }

    @Test func openAIHandsContentOverAsBytesAndTheRestAsEvents() throws {
        var dialect = OpenAIChatDialect()
        let first = try bytePath(&dialect, #"{"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]}"#)
        #expect(first.deltas == ["text-0|hi"])
        #expect(first.events == [.messageStart(id: "c"), .textStart(id: "text-0")])
        let second = try bytePath(&dialect, #"{"id":"c","choices":[{"index":1,"delta":{"content":"yo"}}]}"#)
        #expect(second.deltas == ["text-1|yo"])
        #expect(second.events == [.choice(index: 1), .textStart(id: "text-1")])
        let refusal = try bytePath(&dialect, #"{"id":"c","choices":[{"index":1,"delta":{"refusal":"no"}}]}"#)
        #expect(refusal.deltas.isEmpty)
        #expect(refusal.events == [.refusalDelta(id: "refusal-1", delta: "no")])
    }

    @Test func anthropicHandsTextDeltasOverAsBytesAndTheRestAsEvents() throws {
        var dialect = AnthropicDialect(configuration: StreamDecoderConfiguration())
        _ = try bytePath(&dialect, #"{"type":"message_start","message":{"id":"m","content":[]}}"#)
        let start = try bytePath(
            &dialect, #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#)
        #expect(start.deltas.isEmpty)
        let delta = try bytePath(
            &dialect, #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"h\u00e9"}}"#)
        #expect(delta.deltas == ["0-0|hé"])
        #expect(delta.events.isEmpty)
        let empty = try bytePath(
            &dialect, #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#)
        #expect(empty.deltas.isEmpty && empty.events.isEmpty)
        #expect(throws: StreamError.self) {
            try bytePath(&dialect, #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":1}}"#)
        }
    }

    /// A dialect from outside the package, whose lines may hold ill-formed UTF-8: it lends what
    /// ``CheckedUTF8/init(validating:)`` takes, and repairs the rest into a `String`.
    struct RawBytesDialect: StreamDialect {
        typealias Framer = NDJSONDecoder
        var unknownUnitCount: Int { 0 }
        init(configuration: StreamDecoderConfiguration) {}
        mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
            if let text = CheckedUTF8(validating: unit.data) {
                try textDelta("t", text)
            } else {
                try CheckedUTF8.lending(String(decoding: unit.data, as: UTF8.self)) { try textDelta("t", $0) }
            }
        }
        mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {}
    }

    @Test func bytesFromADialectOutsideThePackageAreCheckedAndRepaired() {
        // Ill-formed UTF-8 (a lone continuation byte, a truncated sequence, an overlong form)
        // becomes U+FFFD, exactly as the event path's String(decoding:) makes it.
        let input: [UInt8] = [0x61, 0x80, 0x62, 0x0A, 0xE2, 0x82, 0x0A, 0xC0, 0xAF, 0x63, 0x0A]
        expectSameAsEventByEvent(RawBytesDialect.self, input, "raw")
        let text = throughMessageDecoder(RawBytesDialect.self, [input]).messages[0].text
        #expect(text == "a\u{FFFD}b" + "\u{FFFD}" + "\u{FFFD}\u{FFFD}c")
        #expect(text.utf8.allSatisfy { $0 != 0x80 && $0 != 0xC0 })
        #expect(input.withUnsafeBytes { CheckedUTF8(validating: UnsafeRawBufferPointer(rebasing: $0[0..<2])) } == nil)
        #expect(input.withUnsafeBytes { CheckedUTF8(validating: UnsafeRawBufferPointer(rebasing: $0[0..<1])) } != nil)
    }
}
