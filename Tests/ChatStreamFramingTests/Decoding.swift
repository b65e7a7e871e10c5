// Helpers that run the decoders over every chunking of an input.
@_spi(Dialects) import ChatStreamFraming
import TestSupport
import Testing

/// What one SSE stream decoded to.
struct SSEOutcome: Equatable, CustomStringConvertible {
    var events: [ServerSentEvent] = []
    var offsets: [Int] = []
    var dataOffsets: [Int] = []
    var comments: [String] = []
    var reconnectionTime: Int?
    var end: StreamEnd?

    var description: String {
        "events: \(events) offsets: \(offsets) data offsets: \(dataOffsets) comments: \(comments) end: \(String(describing: end))"
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Decodes `pieces` through the zero-copy visitor API.
func decodeSSE(_ pieces: [[UInt8]], configuration: ServerSentEventDecoder.Configuration = .default) throws -> SSEOutcome
{
    var decoder = ServerSentEventDecoder(configuration: configuration)
    var outcome = SSEOutcome()
    for piece in pieces {
        try piece.withUnsafeBytes { raw in
            try decoder.feed(
                raw,
                onEvent: { event in
                    outcome.events.append(ServerSentEvent(event))
                    outcome.offsets.append(event.byteOffset)
                    outcome.dataOffsets.append(event.dataOffset)
                },
                onComment: { outcome.comments.append(String(decoding: $0, as: UTF8.self)) })
        }
    }
    outcome.end = try decoder.finish { outcome.events.append(ServerSentEvent($0)) }
    outcome.reconnectionTime = decoder.reconnectionTime
    return outcome
}

/// Decodes `pieces` through the owned-value API.
func decodeSSEOwned(_ pieces: [[UInt8]]) throws -> [ServerSentEvent] {
    var decoder = ServerSentEventDecoder()
    var events: [ServerSentEvent] = []
    for piece in pieces { events += try decoder.feed(piece) }
    events += try decoder.finish()
    return events
}

/// Decodes `input` under every chunking and returns the whole-input outcome after checking
/// that every other chunking gives the same (the failing chunking is named).
func decodeSSEEveryWay(_ input: [UInt8], configuration: ServerSentEventDecoder.Configuration = .default) throws
    -> SSEOutcome
{
    let chunkings = Chunkings.all(of: input)
    let reference = try decodeSSE(chunkings[0].pieces, configuration: configuration)
    for chunking in chunkings.dropFirst() {
        let outcome = try decodeSSE(chunking.pieces, configuration: configuration)
        #expect(outcome == reference, "chunking \(chunking)")
    }
    return reference
}

/// The error a decode throws, or `nil`.
func framingError(_ body: () throws -> Void) -> FramingError? {
    do {
        try body()
        return nil
    } catch let error as FramingError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

func decodeNDJSON(_ pieces: [[UInt8]], configuration: NDJSONDecoder.Configuration = .default) throws -> [NDJSONLine] {
    var decoder = NDJSONDecoder(configuration: configuration)
    var lines: [NDJSONLine] = []
    for piece in pieces {
        try piece.withUnsafeBytes { raw in try decoder.feed(raw) { lines.append(NDJSONLine($0)) } }
    }
    try decoder.finish { lines.append(NDJSONLine($0)) }
    return lines
}

func decodeV4(_ pieces: [[UInt8]]) throws -> [DataStreamV4Part] {
    var decoder = DataStreamV4Decoder()
    var parts: [DataStreamV4Part] = []
    for piece in pieces { parts += try decoder.feed(piece) }
    parts += try decoder.finish()
    return parts
}
