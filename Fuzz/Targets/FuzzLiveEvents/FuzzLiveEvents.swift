// FuzzLiveEvents: the live conversation event decoder (home and Salesforce), whole versus chunked.
//
// Options byte: bit 0 picks the format (home, salesforce-messaging); bit 1 small SSE limits (so
// the limit errors are reached); bit 2 also decodes in strict mode. Invariants: the same events,
// malformed-event errors, counts (heartbeats included), last event ID and framing error whatever the chunking; every
// kept error inside the input, in order, naming a type and (Salesforce) a field; strict mode
// throws exactly the first malformed event's error, or gives the same events when there is none;
// a message that says it completes a stream had pieces of it streamed before, and the drafts of
// streamed messages follow the deltas.

import ChatStream
import ChatStreamFraming
import ChatStreamLive
import FuzzSupport

struct Outcome: Equatable {
    var events: [ConversationEvent] = []
    var malformed: [ConversationEventError] = []
    var malformedCount = 0
    var unknownCount = 0
    var eventCount = 0
    var heartbeatCount = 0
    var lastEventID: String?
    var framingError: FramingError?
    var strictError: ConversationEventError?
}

func run(
    _ pieces: [ArraySlice<UInt8>], format: ConversationEventFormat,
    configuration: ConversationEventDecoder.Configuration
) -> Outcome {
    var decoder = ConversationEventDecoder(format: format, configuration: configuration)
    var outcome = Outcome()
    do {
        for piece in pieces {
            try decoder.feed(piece, into: &outcome.events)
        }
        outcome.events += try decoder.finish()
    } catch let error as FramingError {
        outcome.framingError = error
    } catch let error as ConversationEventError {
        check(!configuration.lenient, "a lenient decoder threw \(error)")
        outcome.strictError = error
    } catch {
        check(false, "unexpected error type \(error)")
    }
    outcome.malformed = decoder.skippedErrors
    outcome.malformedCount = decoder.skippedErrorCount
    outcome.unknownCount = decoder.unknownEventCount
    outcome.eventCount = decoder.eventCount
    outcome.heartbeatCount = decoder.heartbeatCount
    outcome.lastEventID = decoder.lastEventID
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    let format: ConversationEventFormat = input.bit(0) ? .salesforceMessaging : .home
    let framing: ServerSentEventDecoder.Configuration =
        input.bit(1) ? .init(maxLineBytes: 64 + Int(input.options >> 3) * 16, maxEventBytes: 512) : .default
    let lenient = ConversationEventDecoder.Configuration(framing: framing, keptErrorLimit: 1 << 20)
    let payload = input.payload
    let whole = run([payload[...]], format: format, configuration: lenient)
    let chunked = run(input.pieces, format: format, configuration: lenient)
    check(whole == chunked, "whole and chunked decodes differ:\n\(whole)\n\(chunked)")

    check(whole.eventCount == whole.events.count, "eventCount \(whole.eventCount) != \(whole.events.count)")
    check(whole.malformedCount == whole.malformed.count, "malformed count \(whole.malformedCount)")
    var previous = -1
    for error in whole.malformed {
        check(error.byteOffset > previous && error.byteOffset < payload.count, "error offset \(error.byteOffset)")
        check(!error.eventType.isEmpty, "an error names no event type: \(error)")
        check(format == .home || error.field != nil, "a Salesforce error names no field: \(error)")
        previous = error.byteOffset
    }

    // A completed stream had pieces; drafts follow the deltas and end with the message.
    var streamed: Set<String> = []
    var drafts = LiveMessageDrafts()
    for event in whole.events {
        drafts.apply(event)
        switch event.kind {
        case .messageDelta(_, let delta):
            streamed.insert(delta.messageId)
            check(drafts.text(of: delta.messageId) != nil, "a delta left no draft")
        case .messageCreated(let message):
            check(!message.content.completesStream || streamed.contains(message.id), "completes an unstreamed message")
            check(drafts.text(of: message.id) == nil, "a finished message left its draft")
        default: break
        }
    }

    if input.bit(2) {
        var strictConfiguration = lenient
        strictConfiguration.lenient = false
        let strict = run(input.pieces, format: format, configuration: strictConfiguration)
        if let first = whole.malformed.first {
            check(
                strict.strictError == first, "strict mode threw \(String(describing: strict.strictError)), not \(first)"
            )
            check(strict.events == Array(whole.events.prefix(strict.events.count)), "strict events differ")
        } else {
            check(strict.strictError == nil && strict.events == whole.events, "strict and lenient differ")
        }
    }
    return 0
}
