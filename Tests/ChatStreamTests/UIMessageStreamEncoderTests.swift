// The UI message stream encoder: every stream of every format the corpus holds, decoded,
// re-encoded and decoded again as the home protocol, gives the same events at every chunking;
// and the async adapter passes a failure on in-band and releases its source when its reader stops.

import Foundation
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct UIMessageStreamEncoderTests {
    /// Every corpus stream and vendor fixture, and the model agents' recordings, by name, format and bytes.
    static let streams: [CorpusStream] = {
        var streams = StreamCorpus.all
        for stream in VendorStreamTests.streams {
            guard let data = FileManager.default.contents(atPath: stream.path) else { continue }
            streams.append(CorpusStream(name: stream.name, format: stream.format, bytes: Array(data)))
        }
        streams += agentStreams
        return streams
    }()

    /// Fixtures/agents/streams: the mock provider's recordings of both families.
    static let agentStreams: [CorpusStream] = {
        let folder = ProjectPaths.fixtures + "/agents/streams"
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return files.compactMap { file in
            guard let data = FileManager.default.contents(atPath: folder + "/" + file) else { return nil }
            let format: StreamFormat = file.hasPrefix("anthropic-") ? .anthropic : .openAIChat
            return CorpusStream(name: "agents/" + file, format: format, bytes: Array(data))
        }
    }()

    @Test func theCorpusCoversEveryFormat() {
        #expect(Set(Self.streams.map(\.format)) == Set(StreamFormat.allCases))
        #expect(Self.streams.count >= 100)
        #expect(Self.agentStreams.count == 6)
    }

    @Test(arguments: streams)
    func decodedEncodedAndDecodedAgainGivesTheSameEvents(_ stream: CorpusStream) throws {
        let (original, failure) = Self.decode([stream.bytes], format: stream.format)
        var source = original
        if let failure { source.append(.error(failure.info)) }
        var encoder = UIMessageStreamEncoder(firstEventID: 1)
        var bytes: [UInt8] = []
        for event in source { bytes += encoder.encode(event) }
        bytes += encoder.finish()
        let expected = Self.canonical(Self.passedOn(source))
        for chunking in Chunkings.all(of: bytes, seeds: [1]) {
            let (again, againFailure) = Self.decode(chunking.pieces, format: .uiMessageStream)
            #expect(againFailure == nil, "\(stream) \(chunking): \(String(describing: againFailure))")
            #expect(Self.canonical(again) == expected, "\(stream) \(chunking)")
        }
    }

    @Test func startAndFinishCarryTheirMetadataAsTheHomeProtocolDoes() {
        var encoder = UIMessageStreamEncoder()
        let metadata = StreamMetadata(
            messageId: "m", conversationId: "c", raw: ["conversationId": "c", "messageId": "m"])
        let events: [StreamEvent] = [
            .messageStart(id: "m"), .conversationAssigned(id: "c"), .metadata(metadata), .textStart(id: "t"),
            .textDelta(id: "t", delta: "Hi"), .textEnd(id: "t"), .metadata(metadata),
            .finish(reason: .stop, rawReason: "end_turn"), .done,
        ]
        let payloads = events.flatMap { encoder.payloads(for: $0) } + encoder.finishPayloads()
        #expect(
            payloads == [
                #"{"type":"start","messageId":"m","messageMetadata":{"conversationId":"c","messageId":"m"}}"#,
                #"{"type":"text-start","id":"t"}"#, #"{"type":"text-delta","id":"t","delta":"Hi"}"#,
                #"{"type":"text-end","id":"t"}"#,
                #"{"type":"finish","finishReason":"stop","messageMetadata":{"conversationId":"c","messageId":"m"}}"#,
                "[DONE]",
            ])
    }

    @Test func eventIDsCountFromTheFirstAndEveryEventHasOne() {
        var encoder = UIMessageStreamEncoder(firstEventID: 7)
        let bytes = encoder.encode(.stepStart) + encoder.encode(.textStart(id: "a")) + encoder.finish()
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "id: 7\ndata: {\"type\":\"start-step\"}\n\nid: 8\ndata: {\"type\":\"text-start\",\"id\":\"a\"}\n\n"
                + "id: 9\ndata: [DONE]\n\n")
        #expect(encoder.nextEventID == 10)
        #expect(encoder.finish().isEmpty)
    }

    @Test func aFailingSourceEndsWithAnErrorChunkAndKeepsWhatCameBefore() async throws {
        let (source, continuation) = AsyncThrowingStream.makeStream(of: StreamEvent.self)
        continuation.yield(.textStart(id: "t"))
        continuation.yield(.textDelta(id: "t", delta: "so far"))
        continuation.finish(throwing: StreamError(.truncated, message: "the upstream closed"))
        var bytes: [UInt8] = []
        for await piece in source.uiMessageStream() { bytes += piece }
        let (events, failure) = Self.decode([bytes], format: .uiMessageStream)
        #expect(failure == nil)
        #expect(
            events == [
                .textStart(id: "t"), .textDelta(id: "t", delta: "so far"),
                .error(StreamError(.truncated, message: "the upstream closed").info), .done,
            ])
    }

    @Test func aReaderThatStopsCancelsItsSource() async throws {
        let terminated = Shared(false)
        let (source, continuation) = AsyncThrowingStream.makeStream(of: StreamEvent.self)
        continuation.onTermination = { termination in
            if case .cancelled = termination { terminated.value = true }
        }
        continuation.yield(.textStart(id: "t"))
        continuation.yield(.textDelta(id: "t", delta: "one"))
        do {
            var iterator = source.uiMessageStream().makeAsyncIterator()
            let first = await iterator.next()
            #expect(
                first.map { String(decoding: $0, as: UTF8.self) } == "data: {\"type\":\"text-start\",\"id\":\"t\"}\n\n")
        }
        // The reader is gone: the source was told, while it still had events to give.
        #expect(await eventually(timeout: .seconds(60)) { terminated.value })
    }

    // MARK: - Support

    /// The events of `pieces` decoded as `format`, and the error that ended them, if any.
    static func decode(_ pieces: [[UInt8]], format: StreamFormat) -> ([StreamEvent], StreamError?) {
        var decoder = format.makeDecoder()
        var events: [StreamEvent] = []
        do {
            for piece in pieces { try decoder.feed(piece, into: &events) }
            try decoder.finish(into: &events)
        } catch {
            return (events, StreamError(converting: error))
        }
        return (events, nil)
    }

    /// What the encoder passes on of `events`, as the events its output decodes to: choice 0
    /// only, nothing after the terminator (always one at the end), a refusal as its own text part,
    /// and the finish as its normalised name, last before the terminator (the home protocol's
    /// decoder holds the one finish for the end).
    static func passedOn(_ events: [StreamEvent]) -> [StreamEvent] {
        var out: [StreamEvent] = []
        var choice = 0
        var refusal: String?
        var finish: StreamEvent?
        for event in events {
            if case .choice(let index) = event {
                choice = index
                continue
            }
            guard choice == 0 else { continue }
            if case .refusalDelta(let id, let delta) = event {
                if refusal != "refusal-" + id {
                    if let open = refusal { out.append(.textEnd(id: open)) }
                    refusal = "refusal-" + id
                    out.append(.textStart(id: "refusal-" + id))
                }
                out.append(.textDelta(id: "refusal-" + id, delta: delta))
                continue
            }
            if let open = refusal {
                out.append(.textEnd(id: open))
                refusal = nil
            }
            switch event {
            case .finish(let reason, let raw):
                let name = reason?.rawValue ?? raw
                finish = .finish(reason: name.map(StreamFinishReason.init(normalizing:)), rawReason: name)
            case .done:
                return out + (finish.map { [$0] } ?? []) + [.done]
            default:
                out.append(event)
            }
        }
        if let open = refusal { out.append(.textEnd(id: open)) }
        return out + (finish.map { [$0] } ?? []) + [.done]
    }

    /// Events compared without metadata's `raw` (the encoder sends the object it came in, or
    /// one made from its fields), and an unknown part's object with its `type` (the chunk needs one).
    static func canonical(_ events: [StreamEvent]) -> [StreamEvent] {
        events.map { event in
            switch event {
            case .metadata(var metadata):
                metadata.raw = nil
                return .metadata(metadata)
            case .unknown(let type, .object(let object)) where object["type"] == nil:
                return .unknown(
                    type: type, raw: .object(JSONObject([("type", .string(type))] + object.map { ($0.key, $0.value) })))
            default:
                return event
            }
        }
    }
}
