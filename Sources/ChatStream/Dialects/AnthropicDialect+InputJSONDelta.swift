// The tool-input delta read by position: a tool-use block streams its input one small piece per
// event, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta",
// "partial_json":"x"}}`, and parsing each of those with the JSON parser costs more than the rest
// of the work on it. The usual bytes for the block the last delta went to are read by position
// (PositionalRead); any other shape, or another block, goes the general way, which yields the
// same event (or the same error).

import ChatStreamJSON

extension AnthropicDialect {
    /// Where the delta's type begins when the index has one digit.
    private static let deltaTypeOffset = 57

    /// Whether `data` may be an `input_json_delta` (a few bytes tell it from the other events
    /// and deltas; an index of one or two digits).
    @inline(__always)
    static func mayBeInputJSONDelta(_ data: UnsafeRawBufferPointer) -> Bool {
        data.count >= 94 && data[23] == UInt8(ascii: "d") && data[9] == UInt8(ascii: "c")
            && (data[deltaTypeOffset] == UInt8(ascii: "i") || data[deltaTypeOffset + 1] == UInt8(ascii: "i"))
    }

    /// Reads `data` as exactly `{"type":"content_block_delta","index":N,"delta":{"type":
    /// "input_json_delta","partial_json":"…"}}` for the tool-use block the last delta went to,
    /// and does what the general path does with it; false, with nothing done, otherwise.
    mutating func decodeInputJSONDeltaByPosition(_ data: UnsafeRawBufferPointer, emit: EventSink) throws -> Bool {
        guard var read = PositionalRead(data, depth: 2, configuration: limits),
            read.literal(#"{"type":"content_block_delta","index":"#), let index = read.smallInteger(),
            let last = lastDeltaBlock, last.index == index, case .tool(let id, _) = last.block,
            read.literal(#","delta":{"type":"input_json_delta","partial_json":""#), let text = read.string(),
            read.literal("}}"), read.isAtEnd
        else { return false }
        if !text.isEmpty {
            toolInputs[index, default: []].append(contentsOf: text.utf8)
            try emit(.toolInputDelta(id: id, delta: text))
        }
        return true
    }
}
