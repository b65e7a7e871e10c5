// `finish(into:)` with a sink behaves the same whatever the decoder's static type: what a sink
// is handed, including what the end completes (NDJSON's or a v4 stream's last line without its
// newline), comes the same from `StreamDecoder<D>`, from `AnyStreamDecoder` (format given or
// detected) and through a generic `some StreamEventDecoding`, at every chunking. A text delta the
// end completes arrives lent (`textDelta(id:delta:)`), never as an owned `.textDelta` through
// `event(_:)`: the run-time decoder once handed it over owned, so a sink that took text only
// from `textDelta` lost it.

import TestSupport
import Testing

@testable import ChatStream

/// One event as it came: a lent text delta (its text copied) or an owned event, and whether
/// `finish(into:)` rather than `feed(_:into:)` handed it over.
private enum RecordedView: Equatable {
    case lent(id: String, text: String, atFinish: Bool)
    case owned(StreamEvent, atFinish: Bool)
}

private struct ViewRecord: Equatable {
    var views: [RecordedView] = []
    var failure: StreamError?
}

/// Records each event as the sink form hands it: a text delta lent, or any event owned.
private struct ViewSink: StreamEventSink {
    var views: [RecordedView] = []
    var atFinish = false

    mutating func textDelta(id: String, delta: CheckedUTF8) {
        views.append(.lent(id: id, text: delta.string, atFinish: atFinish))
    }

    mutating func event(_ event: StreamEvent) {
        views.append(.owned(event, atFinish: atFinish))
    }
}

/// `pieces` through `decoder`'s lending path, called through the protocol (generic dispatch).
private func recordGenerically(_ decoder: some StreamEventDecoding, _ pieces: [[UInt8]]) -> ViewRecord {
    var decoder = decoder
    var record = ViewRecord()
    var sink = ViewSink()
    do {
        for piece in pieces { try decoder.feed(piece, into: &sink) }
        sink.atFinish = true
        try decoder.finish(into: &sink)
    } catch {
        record.failure = StreamError(converting: error)
    }
    record.views = sink.views
    return record
}

/// `pieces` through `StreamDecoder<Dialect>` called on its concrete type.
private func recordConcretely<Dialect: RegisteredDialect>(_: Dialect.Type, _ pieces: [[UInt8]]) -> ViewRecord {
    var decoder = StreamDecoder<Dialect>()
    var record = ViewRecord()
    var sink = ViewSink()
    do {
        for piece in pieces { try decoder.feed(piece, into: &sink) }
        sink.atFinish = true
        try decoder.finish(into: &sink)
    } catch {
        record.failure = StreamError(converting: error)
    }
    record.views = sink.views
    return record
}

/// `pieces` through `AnyStreamDecoder` called on its concrete type.
private func recordAny(_ format: StreamFormat?, _ pieces: [[UInt8]]) -> ViewRecord {
    var decoder = AnyStreamDecoder(format: format)
    var record = ViewRecord()
    var sink = ViewSink()
    do {
        for piece in pieces { try decoder.feed(piece, into: &sink) }
        sink.atFinish = true
        try decoder.finish(into: &sink)
    } catch {
        record.failure = StreamError(converting: error)
    }
    record.views = sink.views
    return record
}

/// Streams whose last text delta only the end of input completes (the last line has no newline).
private let endedByFinish: [CorpusStream] = [
    CorpusStream(
        name: "ollama, last line unterminated", format: .ndjson,
        bytes: Array(
            """
            {"model":"m","created_at":"t","message":{"role":"assistant","content":"Hel"},"done":false}
            {"model":"m","created_at":"t","message":{"role":"assistant","content":"lo \\u00e9"},"done":true,"done_reason":"stop"}
            """.utf8)),
    CorpusStream(
        name: "v4, last line unterminated", format: .aiSDKv4,
        bytes: Array(
            """
            f:{"messageId":"m1"}
            0:"Hel"
            0:"lo"
            """.utf8)),
]

/// The corpus's line-framed streams with their final newlines cut off, so that their last line
/// arrives at `finish`.
private let unterminatedCorpus: [CorpusStream] = StreamCorpus.all.compactMap { stream in
    guard stream.format == .ndjson || stream.format == .aiSDKv4, stream.bytes.last == UInt8(ascii: "\n") else {
        return nil
    }
    var bytes = stream.bytes
    while bytes.last == UInt8(ascii: "\n") || bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    return CorpusStream(name: stream.name + " (unterminated)", format: stream.format, bytes: bytes)
}

@Suite(.blockingAllowed) struct FinishViewsTests {
    @Test(arguments: StreamCorpus.all + unterminatedCorpus + endedByFinish)
    func viewsAreTheSameWhateverTheStaticType(_ stream: CorpusStream) {
        for (name, pieces) in stream.chunkings {
            let concrete = recordConcretely(stream.format.dialect, pieces)
            #expect(recordAny(stream.format, pieces) == concrete, "AnyStreamDecoder, \(name)")
            #expect(
                recordGenerically(AnyStreamDecoder(format: stream.format), pieces) == concrete, "generic Any, \(name)")
            #expect(recordGenerically(stream.format.makeDecoder(), pieces) == concrete, "makeDecoder, \(name)")
            if stream.detectedFormat == stream.format {
                #expect(recordAny(nil, pieces) == concrete, "AnyStreamDecoder detecting, \(name)")
            }
            let owned = concrete.views.filter { if case .owned(.textDelta, _) = $0 { true } else { false } }
            #expect(owned.isEmpty, "a text delta came owned, \(name)")
        }
    }

    @Test(arguments: endedByFinish)
    func theLastDeltaArrivesLentFromFinish(_ stream: CorpusStream) {
        for (name, pieces) in stream.chunkings {
            for record in [recordConcretely(stream.format.dialect, pieces), recordAny(stream.format, pieces)] {
                let atFinish = record.views.filter {
                    switch $0 {
                    case .lent(_, _, let atFinish), .owned(_, let atFinish): atFinish
                    }
                }
                #expect(atFinish.contains { if case .lent = $0 { true } else { false } }, "\(name): \(atFinish)")
                let text = record.views.map { if case .lent(_, let text, _) = $0 { text } else { "" } }.joined()
                #expect(text == (stream.format == .ndjson ? "Hello é" : "Hello"), "\(name)")
            }
        }
    }
}
