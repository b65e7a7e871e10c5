// FuzzSSE: the server-sent-event decoder, whole versus chunked.
//
// Options byte: bit 0 selects small limits (line limit from bits 1-3, event limit from bits 4-7)
// so the limit paths are reached; otherwise the defaults. Invariants: the same events, error,
// end report, last event ID and retry whatever the chunking; no event's data above the event
// limit; total data no larger than the input; buffered bytes bounded by the limits.

@_spi(Dialects) import ChatStreamFraming
import FuzzSupport

struct Recorded: Equatable {
    var type: [UInt8]
    var data: [UInt8]
    var lastEventID: [UInt8]
    var retry: Int?
    var byteOffset: Int
}

struct Outcome: Equatable {
    var events: [Recorded] = []
    var comments: [[UInt8]] = []
    var error: FramingError?
    var end: StreamEnd?
    var lastEventID: String?
    var reconnectionTime: Int?
}

func run(_ pieces: [ArraySlice<UInt8>], _ configuration: ServerSentEventDecoder.Configuration, total: Int) -> Outcome {
    var decoder = ServerSentEventDecoder(configuration: configuration)
    var outcome = Outcome()
    // Carry (one line) + data (one event) + event type and last event ID (one line each).
    let bound = 3 * configuration.maxLineBytes + configuration.maxEventBytes
    do {
        for piece in pieces {
            try piece.withUnsafeBytes { bytes in
                try decoder.feed(
                    bytes,
                    onEvent: { view in
                        outcome.events.append(
                            Recorded(
                                type: Array(view.type), data: Array(view.data), lastEventID: Array(view.lastEventID),
                                retry: view.retry, byteOffset: view.byteOffset))
                    },
                    onComment: { outcome.comments.append(Array($0)) })
            }
            check(decoder.bufferedByteCount <= bound, "buffered \(decoder.bufferedByteCount) > \(bound)")
        }
        check(decoder.byteCount == total, "byteCount \(decoder.byteCount) != \(total)")
        outcome.end = try decoder.finish { _ in check(false, "finish dispatched an event") }
        // Only the last event ID outlives a stream (EventSource keeps it for reconnecting).
        check(decoder.bufferedByteCount <= configuration.maxLineBytes, "finish kept \(decoder.bufferedByteCount) bytes")
    } catch let error as FramingError {
        outcome.error = error
        // A failed decoder keeps failing with the same error.
        do {
            let probe: [UInt8] = Array("data: x\n\n".utf8)
            try probe.withUnsafeBytes { bytes in try decoder.feed(bytes) { _ in } }
            check(false, "decoder accepted input after failing")
        } catch let again as FramingError {
            check(again == error, "a failed decoder threw a different error")
        } catch { check(false, "unexpected error \(error)") }
    } catch {
        check(false, "unexpected error type \(error)")
    }
    outcome.lastEventID = decoder.lastEventID
    outcome.reconnectionTime = decoder.reconnectionTime
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    let configuration: ServerSentEventDecoder.Configuration =
        input.bit(0)
        ? .init(maxLineBytes: 1 + Int((input.options >> 1) & 7) * 9, maxEventBytes: Int(input.options >> 4) * 13)
        : .default
    let payload = input.payload
    let whole = run([payload[...]], configuration, total: payload.count)
    let chunked = run(input.pieces, configuration, total: payload.count)
    check(whole == chunked, "whole and chunked decodes differ:\n\(whole)\n\(chunked)")

    var totalData = 0
    var lastOffset = -1
    for event in whole.events {
        totalData += event.data.count
        check(event.data.count <= configuration.maxEventBytes, "event data above maxEventBytes")
        check(event.byteOffset > lastOffset && event.byteOffset < payload.count, "event offset out of order")
        lastOffset = event.byteOffset
        check(!event.type.isEmpty, "empty event type (must default to message)")
    }
    check(totalData <= payload.count, "more event data (\(totalData)) than input (\(payload.count))")
    if let end = whole.end {
        check(end.totalBytes == payload.count, "end.totalBytes \(end.totalBytes) != \(payload.count)")
        check(end.droppedBytes >= 0 && end.droppedBytes <= end.totalBytes, "droppedBytes out of range")
    }
    if let error = whole.error {
        check(
            error.byteOffset >= 0 && error.byteOffset <= payload.count, "error offset \(error.byteOffset) outside input"
        )
    }
    return 0
}
