// The tool-input delta read by position: a streamed tool call sends its input one small piece
// per chunk, `{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":"x"}`, and
// parsing each of those with the JSON parser costs more than the rest of the work on it. The
// usual bytes are read by position (PositionalRead); any other shape goes the general way, which
// yields the same event (or the same error).

import ChatStreamJSON

extension UIMessageStreamDialect {
    /// Whether `data` may be a tool-input delta (two bytes tell it from a text delta).
    @inline(__always)
    static func mayBeToolInputDelta(_ data: UnsafeRawBufferPointer) -> Bool {
        data.count >= 63 && data[10] == UInt8(ascii: "o") && data[9] == UInt8(ascii: "t")
    }

    /// Reads `data` as exactly `{"type":"tool-input-delta","toolCallId":"…","inputTextDelta":"…"}`
    /// and emits its event; false, with nothing emitted, when it is not exactly that.
    mutating func decodeToolInputDeltaByPosition(_ data: UnsafeRawBufferPointer, emit: EventSink) throws -> Bool {
        guard var read = PositionalRead(data, depth: 1, configuration: limits),
            read.literal(#"{"type":"tool-input-delta","toolCallId":""#), let id = read.plainString(),
            read.literal(#","inputTextDelta":""#), let delta = read.string(), read.literal("}"), read.isAtEnd
        else { return false }
        try emit(.toolInputDelta(id: toolCallIDs.string(bytes: id), delta: delta))
        return true
    }
}
