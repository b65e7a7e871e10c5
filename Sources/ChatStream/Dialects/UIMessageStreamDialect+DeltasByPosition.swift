// Deltas read by position: a streamed reply sends one small chunk per token,
// `{"type":"text-delta","id":"t1","delta":"Hi"}`, and a streamed tool call one per piece of its
// input, `{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":"x"}`; parsing each
// of those with the JSON parser costs more than the rest of the work on it. The usual bytes are
// read by position (PositionalRead): a text delta without escapes is lent straight from the
// unit, a tool-input delta is decoded; any other shape (or a text with escapes) goes the general
// way, which yields the same event (or the same error).

import ChatStreamJSON

extension UIMessageStreamDialect {
    /// Whether `data` may be a text delta (two bytes tell it from the other chunks).
    @inline(__always)
    static func mayBeTextDelta(_ data: UnsafeRawBufferPointer) -> Bool {
        data.count >= 38 && data[10] == UInt8(ascii: "e") && data[9] == UInt8(ascii: "t")
    }

    /// Reads `data` as exactly `{"type":"text-delta","id":"…","delta":"…"}` with no escapes in
    /// either string, and lends the delta to `textDelta`; false, with nothing done, otherwise.
    mutating func decodeTextDeltaByPosition(_ data: UnsafeRawBufferPointer, textDelta: TextDeltaSink) throws -> Bool {
        guard var read = PositionalRead(data, depth: 1, configuration: limits),
            read.literal(#"{"type":"text-delta","id":""#), let id = read.plainString(),
            read.literal(#","delta":""#), let delta = read.plainString(), read.literal("}"), read.isAtEnd
        else { return false }
        try textDelta(partIDs.string(bytes: id), CheckedUTF8(unchecked: delta))
        return true
    }

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
