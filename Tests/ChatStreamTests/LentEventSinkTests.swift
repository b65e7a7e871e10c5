// Lent events (`feed(_:into:)` with a sink): over every stream of every format, at every chunking,
// with the format given and detected, what a sink is handed, made owned, must be exactly the
// events `feed(_:into:)` appends to an array, with the same error; every text delta `decode` yields must come lent (an
// owned one would mean a dialect lost its byte path). Then the corners: escapes and surrogates
// in lent text, a cut stream handing over everything before its error, a dialect without a
// byte path, and the IDs a lent delta names.

import ChatStreamFraming
import TestSupport
import Testing

@testable import ChatStream

/// What one way of decoding gave: the events, how many text deltas `decode` lent, how many it
/// gave owned, and the error that stopped it.
private struct Decoded {
    var events: [StreamEvent] = []
    var lentDeltas = 0
    var ownedDeltasFromDecode = 0
    var failure: StreamError?
}

/// `pieces` through `decoder`'s event path.
private func owned(_ decoder: some StreamEventDecoding, _ pieces: [[UInt8]]) -> Decoded {
    var decoder = decoder
    var result = Decoded()
    do {
        for piece in pieces {
            try decoder.feed(piece, into: &result.events)
        }
        try decoder.finish(into: &result.events)
    } catch {
        result.failure = StreamError(converting: error)
    }
    return result
}

/// Each event as the sink form hands it, made owned: counts the text deltas lent and those that
/// came owned through `event(_:)`.
private struct CountingSink: StreamEventSink {
    var result = Decoded()

    mutating func textDelta(id: String, delta: CheckedUTF8) {
        result.lentDeltas += 1
        result.events.append(.textDelta(id: id, delta: delta.string))
    }

    mutating func event(_ event: StreamEvent) {
        if case .textDelta = event { result.ownedDeltasFromDecode += 1 }
        result.events.append(event)
    }
}

/// `pieces` through `decoder`'s lending path (the sink form), each event made owned where it came.
private func lent(_ decoder: some StreamEventDecoding, _ pieces: [[UInt8]]) -> Decoded {
    var decoder = decoder
    var sink = CountingSink()
    do {
        for piece in pieces { try decoder.feed(piece, into: &sink) }
        try decoder.finish(into: &sink)
    } catch {
        sink.result.failure = StreamError(converting: error)
    }
    return sink.result
}

private func textDeltaCount(_ events: [StreamEvent]) -> Int {
    events.count { if case .textDelta = $0 { true } else { false } }
}

@Suite(.blockingAllowed) struct LentEventSinkTests {
    @Test(arguments: StreamCorpus.all)
    func viewsAreTheEventsAtEveryChunking(_ stream: CorpusStream) {
        let expected = owned(AnyStreamDecoder(format: stream.format), [stream.bytes])
        var formats: [StreamFormat?] = [stream.format]
        if stream.detectedFormat == stream.format { formats.append(nil) }
        for format in formats {
            for (name, pieces) in stream.chunkings {
                let label = "\(name), format \(format?.rawValue ?? "detected")"
                let result = lent(AnyStreamDecoder(format: format), pieces)
                #expect(result.events == expected.events, "\(label)")
                #expect(result.failure == expected.failure, "\(label)")
                #expect(result.ownedDeltasFromDecode == 0, "\(label): a text delta came owned")
            }
        }
    }

    @Test func theCorpusLendsTextInEveryFormat() {
        var lentByFormat: [StreamFormat: Int] = [:]
        for stream in StreamCorpus.all {
            lentByFormat[stream.format, default: 0] +=
                lent(AnyStreamDecoder(format: stream.format), [stream.bytes])
                .lentDeltas
        }
        for format in StreamFormat.allCases {
            #expect((lentByFormat[format] ?? 0) > 0, "\(format.rawValue): no text delta lent")
        }
    }

    private static func sse(_ payloads: [String]) -> [UInt8] {
        Array(payloads.map { "data: \($0)\n\n" }.joined().utf8)
    }

    @Test func lentTextIsUnescapedAndNamesItsPart() throws {
        let input = Self.sse([
            #"{"type":"text-start","id":"t1"}"#,
            #"{"type":"text-delta","id":"t1","delta":"\u00e9 \ud83d\ude00 \"q\"\n\ud800"}"#,
            #"{"type":"text-delta","delta":"no id"}"#,
            #"{"type":"text-delta","id":"t\u0031","delta":""}"#,
            "[DONE]",
        ])
        for chunking in Chunkings.all(of: input) {
            var decoder = StreamDecoder<UIMessageStreamDialect>()
            /// Each lent delta's ID and bytes, as they came.
            struct Pairs: StreamEventSink {
                var lentPairs: [[UInt8]] = []
                mutating func textDelta(id: String, delta: CheckedUTF8) {
                    lentPairs.append(Array(id.utf8))
                    lentPairs.append(delta.withSpan { span in span.withUnsafeBytes { Array($0) } })
                }
                mutating func event(_ event: StreamEvent) {}
            }
            var sink = Pairs()
            for piece in chunking.pieces { try decoder.feed(piece, into: &sink) }
            try decoder.finish(into: &sink)
            let lentPairs = sink.lentPairs
            #expect(
                lentPairs == [
                    Array("t1".utf8), Array("é 😀 \"q\"\n\u{FFFD}".utf8), Array("text-0".utf8), Array("no id".utf8),
                    Array("t1".utf8), [],
                ], "\(chunking)")
        }
    }

    @Test func aCutOrBrokenStreamHandsOverEverythingBeforeItsError() {
        let deltas = (0..<5).map { #"{"type":"text-delta","id":"t1","delta":"piece \#($0) "}"# }
        // Cut: no [DONE].
        let cut = Self.sse(deltas)
        for chunking in Chunkings.all(of: cut) {
            let result = lent(StreamDecoder<UIMessageStreamDialect>(), chunking.pieces)
            #expect(result.lentDeltas == 5, "\(chunking)")
            #expect(result.failure?.kind == .truncated, "\(chunking)")
        }
        // A chunk that is not JSON after three deltas: those three, then the error at its offset.
        let broken = Self.sse(Array(deltas.prefix(3)) + [#"{"type":"text-delta","#] + Array(deltas.suffix(2)))
        let badOffset = Self.sse(Array(deltas.prefix(3))).count + "data: ".utf8.count
        for chunking in Chunkings.all(of: broken) {
            let result = lent(StreamDecoder<UIMessageStreamDialect>(), chunking.pieces)
            #expect(result.lentDeltas == 3, "\(chunking)")
            #expect(result.failure?.kind == .malformed, "\(chunking)")
            #expect((result.failure?.byteOffset ?? -1) >= badOffset, "\(chunking)")
            let lenient = lent(
                StreamDecoder<UIMessageStreamDialect>(configuration: .init(lenient: true)), chunking.pieces)
            #expect(lenient.lentDeltas == 5, "\(chunking)")
        }
    }

    /// A dialect from outside the package that emits its text deltas as owned events: a sink
    /// still meets them lent.
    private struct EventOnlyDialect: StreamDialect {
        typealias Framer = NDJSONDecoder
        init(configuration: StreamDecoderConfiguration) {}
        var unknownUnitCount: Int { 0 }
        mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
            try emit(.textDelta(id: "line", delta: String(decoding: unit.data, as: UTF8.self)))
        }
        mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {}
    }

    @Test func textDeltasADialectEmitsOwnedAreLentToo() {
        let input = Array("one\ntwo\nthree".utf8)
        for chunking in Chunkings.all(of: input) {
            let result = lent(StreamDecoder<EventOnlyDialect>(), chunking.pieces)
            #expect(result.events == owned(StreamDecoder<EventOnlyDialect>(), chunking.pieces).events, "\(chunking)")
            // Three lent, the last one handed over by `finish`.
            #expect(result.lentDeltas == 3 && result.ownedDeltasFromDecode == 0, "\(chunking)")
            #expect(result.events.count == 3, "\(chunking): the last line comes from finish")
        }
    }

    /// Chunks near the shape the home dialect reads by position: each must give, lent, what the
    /// event path gives (which never takes that shortcut), error or not.
    static let nearTheUsualShape = [
        #"{"type":"text-delta","id":"t1","delta":"usual"}"#,
        #"{"type":"text-delta","id":5,"delta":"number ID"}"#,
        #"{"type":"text-delta","id":null,"delta":"null ID"}"#,
        #"{"type":"text-delta","id":true,"delta":"true ID"}"#,
        #"{"type":"text-delta","id":"t1","delta":"x","delta":"repeated, the last wins"}"#,
        #"{"type":"text-delta","delta":"reordered","id":"t2"}"#,
        #"{"id":"t3","type":"text-delta","delta":"type second"}"#,
        #"{"type":"text-delta","id":"t1","delta":"extra member","x":1}"#,
        #"{"type":"text-delta","id":"t\u0031","delta":"escaped ID \u00e9"}"#,
        #"{"type":"text-delta","id":"t1","delta":"ok","type":"reasoning-delta"}"#,
        #"{"type":"reasoning-delta","id":"r1","delta":"same shape, other type"}"#,
        #"{"type":"text-deltas","id":"t1","delta":"longer type"}"#,
        #"{"type":"text-delta","ID":"t1","delta":"other key"}"#,
        #"{"type":"text-delta","id":"t1","delta":""}"#,
        "[DONE]",
    ]

    static let notAStringDelta = [
        #"{"type":"text-delta","id":"t1","delta":5}"#, #"{"type":"text-delta","id":"t1","delta":{}}"#,
        #"{"type":"text-delta","id":"t1","delta":[]}"#, #"{"type":"text-delta","id":"t1","delta":null}"#,
        #"{"type":"text-delta","id":{},"delta":"x"}"#, #"{"typ":"text-delta","id":"t1","delta":"short key"}"#,
    ]

    /// The chunks with a member no dialect reads added to each object: the same events, but no
    /// chunk has the three-member shape any more, so the general path decodes every one.
    private static func padded(_ chunks: [String]) -> [String] {
        chunks.map { $0.hasSuffix("}") ? String($0.dropLast()) + #","zz":0}"# : $0 }
    }

    /// `events` with the padding member taken out of the chunks kept whole (`.unknown`), which
    /// carry it.
    private static func unpadded(_ events: [StreamEvent]) -> [StreamEvent] {
        events.map { event in
            guard case .unknown(let type, .object(var raw)) = event else { return event }
            raw["zz"] = nil
            return .unknown(type: type, raw: .object(raw))
        }
    }

    @Test func chunksNearTheUsualShapeGiveWhatTheGeneralPathGives() {
        let input = Self.sse(Self.nearTheUsualShape)
        var general = owned(StreamDecoder<UIMessageStreamDialect>(), [Self.sse(Self.padded(Self.nearTheUsualShape))])
        general.events = Self.unpadded(general.events)
        #expect(general.failure == nil)
        #expect(textDeltaCount(general.events) == 11)
        for chunking in Chunkings.all(of: input) {
            let events = owned(StreamDecoder<UIMessageStreamDialect>(), chunking.pieces)
            #expect(events.events == general.events, "owned, \(chunking)")
            #expect(events.failure == nil, "owned, \(chunking)")
            let result = lent(StreamDecoder<UIMessageStreamDialect>(), chunking.pieces)
            #expect(result.events == general.events, "lent, \(chunking)")
            #expect(result.failure == nil, "lent, \(chunking)")
            #expect(result.lentDeltas == 11, "lent, \(chunking)")
        }
        for bad in Self.notAStringDelta {
            let chunks = [#"{"type":"text-delta","id":"t1","delta":"before"}"#, bad, "[DONE]"]
            let general = owned(StreamDecoder<UIMessageStreamDialect>(), [Self.sse(Self.padded(chunks))])
            for result in [
                owned(StreamDecoder<UIMessageStreamDialect>(), [Self.sse(chunks)]),
                lent(StreamDecoder<UIMessageStreamDialect>(), [Self.sse(chunks)]),
            ] {
                #expect(result.events == general.events, "\(bad)")
                #expect(result.failure?.kind == general.failure?.kind, "\(bad)")
                #expect(result.failure?.field == general.failure?.field, "\(bad)")
            }
        }
    }
}
