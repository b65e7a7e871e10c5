// Deltas read by position: a streamed reply sends one small chunk per token,
// `{"type":"text-delta","id":"t1","delta":"Hi"}`, and a streamed tool call one per piece of its
// input, `{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":"x"}`; parsing each
// of those with the JSON parser costs more than the rest of the work on it. The usual bytes are
// scanned (ChatStreamJSON's JSONScan): a text delta is lent straight from the unit (or, when it
// holds two-character escapes such as `\n`, from a decoded copy), a tool-input delta is decoded;
// any other shape (an ID with escapes, a text with a `\u` escape) goes the general way, which
// yields the same event (or the same error).

import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

extension UIMessageStreamDialect {
    /// Reads `unit` as exactly `{"type":"text-delta","id":"…","delta":"…"}` with no escapes in
    /// the ID and no `\u` escape in the delta, and lends the delta to `textDelta`; or as exactly
    /// `{"type":"tool-input-delta","toolCallId":"…","inputTextDelta":"…"}`, and emits its event.
    /// False, with nothing done, when it is neither.
    mutating func decodeDeltaByPosition(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws -> Bool {
        guard var read = parser.scan(unit, depth: 1), read.literal(#"{"type":""#) else { return false }
        if read.literal(#"text-delta","id":""#) {
            guard let id = read.plainString(), read.literal(#","delta":""#), let delta = read.stringContent(),
                read.literal("}"), read.isAtEnd
            else { return false }
            let part = partIDs.string(bytes: id)
            try delta.withDecoded { try textDelta(part, CheckedUTF8(unchecked: $0)) }
            return true
        }
        guard read.literal(#"tool-input-delta","toolCallId":""#), let id = read.plainString(),
            read.literal(#","inputTextDelta":""#), let delta = read.string(), read.literal("}"), read.isAtEnd
        else { return false }
        try emit(.toolInputDelta(id: toolCallIDs.string(bytes: id), delta: delta))
        return true
    }
}
