// Every text delta takes the text road: no dialect hands one to its event sink, so a reader of
// lent text (a sink that takes text from `textDelta(id:delta:)` and every other event elsewhere,
// as the README's example does) never loses text. Checked at the dialect itself, through a wrapper that records
// each owned `.textDelta` its dialect emits, over every recorded stream of its format, the fuzz
// regression inputs and the shapes that once broke it (Anthropic's `content_block_start` and
// `message_start` carrying text). Deliverable 7 of issue 17.

import ChatStreamFraming
import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// `Inner` as it is, except that every `.textDelta` it hands to `emit` (instead of to
/// `textDelta`) is counted in ``ownedTextDeltas``.
struct OwnedTextCounting<Inner: StreamDialect>: StreamDialect {
    typealias Framer = Inner.Framer
    var inner: Inner
    var ownedTextDeltas = 0
    var lentTextDeltas = 0

    init(configuration: StreamDecoderConfiguration) {
        inner = Inner(configuration: configuration)
    }

    var unknownUnitCount: Int { inner.unknownUnitCount }
    static var formatName: String { Inner.formatName }

    mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        var owned = 0
        var lent = 0
        defer {
            ownedTextDeltas += owned
            lentTextDeltas += lent
        }
        try inner.decode(
            unit,
            textDelta: {
                lent += 1
                try textDelta($0, $1)
            },
            emit: {
                if case .textDelta = $0 { owned += 1 }
                try emit($0)
            })
    }

    mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        var owned = 0
        var lent = 0
        defer {
            ownedTextDeltas += owned
            lentTextDeltas += lent
        }
        try inner.finish(
            textDelta: {
                lent += 1
                try textDelta($0, $1)
            },
            emit: {
                if case .textDelta = $0 { owned += 1 }
                try emit($0)
            })
    }
}

/// What decoding `pieces` through the lent path of `Dialect` (wrapped) gave.
struct LentPathOutcome {
    var ownedFromDialect = 0
    var lentFromDialect = 0
    var ownedViews = 0
    var lentViews = 0
    var textFromViews = ""
    var textFromEvents = ""
    /// The errors each path ended with: a wrapper must not change them (it once did, naming itself).
    var errorFromViews: StreamError?
    var errorFromEvents: StreamError?
}

/// Counts the text deltas handed lent and those handed owned through `event(_:)`.
private struct Counting: StreamEventSink {
    var lent = 0
    var owned = 0
    var text = ""
    mutating func textDelta(id: String, delta: CheckedUTF8) {
        lent += 1
        text += delta.string
    }
    mutating func event(_ event: StreamEvent) {
        guard case .textDelta(_, let delta) = event else { return }
        owned += 1
        text += delta
    }
}

enum LentPath {
    /// Decodes `pieces` as `Dialect` twice, through a sink and into an array of events, counting
    /// the text deltas the dialect emitted owned and those the sink was handed owned.
    static func check<Dialect: StreamDialect>(
        _: Dialect.Type, _ pieces: [[UInt8]], lenient: Bool = false
    ) -> LentPathOutcome {
        let configuration = StreamDecoderConfiguration(lenient: lenient)
        var outcome = LentPathOutcome()
        var views = StreamDecoder<OwnedTextCounting<Dialect>>(configuration: configuration)
        var sink = Counting()
        do {
            for piece in pieces { try views.feed(piece, into: &sink) }
            try views.finish(into: &sink)
        } catch {
            outcome.errorFromViews = error as? StreamError
        }
        outcome.lentViews = sink.lent
        outcome.ownedViews = sink.owned
        outcome.textFromViews = sink.text
        outcome.ownedFromDialect = views.dialect.ownedTextDeltas
        outcome.lentFromDialect = views.dialect.lentTextDeltas
        var events = StreamDecoder<Dialect>(configuration: configuration)
        var owned: [StreamEvent] = []
        do {
            for piece in pieces { try events.feed(piece, into: &owned) }
            try events.finish(into: &owned)
        } catch {
            outcome.errorFromEvents = error as? StreamError
        }
        for case .textDelta(_, let delta) in owned { outcome.textFromEvents += delta }
        return outcome
    }

    /// ``check(_:_:lenient:)`` with the dialect of `format`.
    static func check(_ format: StreamFormat, _ pieces: [[UInt8]], lenient: Bool = false) -> LentPathOutcome {
        switch format {
        case .uiMessageStream: check(UIMessageStreamDialect.self, pieces, lenient: lenient)
        case .openAIChat: check(OpenAIChatDialect.self, pieces, lenient: lenient)
        case .openAIResponses: check(OpenAIResponsesDialect.self, pieces, lenient: lenient)
        case .anthropic: check(AnthropicDialect.self, pieces, lenient: lenient)
        case .aiSDKv4: check(DataStreamV4Dialect.self, pieces, lenient: lenient)
        case .ndjson: check(OllamaDialect.self, pieces, lenient: lenient)
        case .jsonArray: check(GeminiDialect.self, pieces, lenient: lenient)
        }
    }
}

@Suite(.blockingAllowed) struct LentTextInvariantTests {
    @Test(arguments: StreamCorpus.all)
    func noDialectEmitsATextDeltaOwned(_ stream: CorpusStream) {
        for (name, pieces) in stream.chunkings {
            let outcome = LentPath.check(stream.format, pieces)
            #expect(outcome.ownedFromDialect == 0, "\(name): the dialect emitted a text delta owned")
            #expect(outcome.ownedViews == 0, "\(name): a text delta came owned on the lent path")
            #expect(outcome.textFromViews == outcome.textFromEvents, "\(name)")
        }
    }

    @Test func everyFormatIsChecked() {
        let formats = Set(
            StreamCorpus.all.filter { LentPath.check($0.format, [$0.bytes]).lentFromDialect > 0 }.map(\.format))
        #expect(formats == Set(StreamFormat.allCases))
    }

    /// The input a 25-minute `FuzzDialects` run stopped on ("AnthropicDialect: a text delta came
    /// owned"), in its file under FuzzRegressions, and the shapes it stands for, at every chunking.
    @Test func anthropicTextInsideABlockStartOrAMessageStartComesLent() throws {
        let file = FuzzRegressionTests.directory + "/FuzzDialects-anthropic-block-start-text.bin"
        let bytes = try #require(FileManager.default.contents(atPath: file).map(Array.init))
        try #require(bytes.count > 2 && bytes[1] & 7 == 3, "an AnthropicDialect input")
        let payload = Array(bytes[2...])
        let found = LentPath.check(AnthropicDialect.self, [payload], lenient: bytes[1] & 8 != 0)
        #expect(found.ownedFromDialect == 0 && found.ownedViews == 0)
        #expect(found.lentFromDialect > 0)
        #expect(found.textFromViews == found.textFromEvents)

        let events = [
            #"{"type":"message_start","message":{"id":"m","content":[{"type":"text","text":"A"}]}}"#,
            #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"W"}}"#,
            #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#,
            #"{"type":"content_block_stop","index":0}"#,
            #"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#, #"{"type":"message_stop"}"#,
        ]
        let stream = Array(events.map { "data: \($0)\n\n" }.joined().utf8)
        for chunking in Chunkings.all(of: stream) {
            let outcome = LentPath.check(AnthropicDialect.self, chunking.pieces)
            #expect(outcome.ownedFromDialect == 0 && outcome.ownedViews == 0, "\(chunking)")
            #expect(outcome.lentViews == 3, "\(chunking)")
            #expect(outcome.textFromViews == "AWx", "\(chunking)")
            #expect(outcome.textFromEvents == "AWx", "\(chunking)")
        }
    }

    /// The wrapper itself counts an owned text delta (so the checks above can fail).
    @Test func theCheckSeesAnOwnedTextDelta() {
        struct OwnedText: StreamDialect {
            typealias Framer = NDJSONDecoder
            init(configuration: StreamDecoderConfiguration) {}
            var unknownUnitCount: Int { 0 }
            mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
                try emit(.textDelta(id: "t", delta: String(decoding: unit.data, as: UTF8.self)))
            }
            mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {}
        }
        let outcome = LentPath.check(OwnedText.self, [Array("a\nb\n".utf8)])
        #expect(outcome.ownedFromDialect == 2)
        #expect(outcome.lentViews == 2 && outcome.ownedViews == 0, "the reader lends it anyway")
    }
}
