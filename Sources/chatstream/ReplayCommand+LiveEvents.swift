// `chatstream replay --format salesforce-messaging` (or `live-events`, the home /events stream):
// a recorded live conversation stream decoded into conversation events, one line each
// (`--json`: `{"id","type",...}`), then a summary of the skipped events on stderr.

import ChatStream
import ChatStreamLive

extension ReplayCommand {
    /// The live-event format a `--format` name asks for, if it is one.
    static func liveFormat(_ name: String?) -> ConversationEventFormat? {
        switch name {
        case "salesforce-messaging": .salesforceMessaging
        case "live-events": .home
        default: nil
        }
    }

    /// Decodes a live conversation stream; exit 0, or 65 when the SSE limits were passed.
    static func replayLive(_ input: inout ReplayInput, format: ConversationEventFormat, json: Bool) -> Int32 {
        var decoder = ConversationEventDecoder(format: format)
        var events: [ConversationEvent] = []
        do {
            try input.forEachPiece { piece in
                // Each event printed, those before an error in the piece too.
                defer {
                    for event in events {
                        Output.standardOutput((json ? event.jsonValue.jsonText : event.summary) + "\n")
                    }
                    events.removeAll(keepingCapacity: true)
                }
                try decoder.feed(piece, into: &events)
                return true
            }
            _ = try decoder.finish()
        } catch {
            Output.flush()
            Output.standardError("error: \(error)\n")
            return 65
        }
        Output.flush()
        for error in decoder.skippedErrors { Output.standardError("skipped: \(error)\n") }
        Output.standardError(
            "\(decoder.eventCount) events, \(decoder.unknownEventCount) of unknown types skipped, "
                + "\(decoder.skippedErrorCount) malformed skipped\n")
        return 0
    }
}
