// Block deltas read by position: a content block streams in one small delta per event,
// `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}` or
// `…{"type":"input_json_delta","partial_json":"x"}}` for a tool-use block, and parsing each of
// those with the JSON parser costs more than the rest of the work on it. The usual bytes for the
// block the last delta went to are scanned (ChatStreamJSON's JSONScan): a text delta is lent
// straight from the unit (or, when it holds two-character escapes such as `\n`, from a decoded
// copy), a tool-input delta is decoded; any other shape, another block, or a text with a `\u`
// escape goes the general way, which yields the same event (or the same error).

import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

extension AnthropicDialect {
    /// Reads `unit` as exactly `{"type":"content_block_delta","index":N,"delta":{…}}` with a
    /// `text_delta` (text without a `\u` escape) for the text block the last delta went to, or an
    /// `input_json_delta` for the tool-use block the last delta went to, and does what the general
    /// path does with it; false, with nothing done, otherwise.
    mutating func decodeBlockDeltaByPosition(
        _ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink
    ) throws -> Bool {
        guard var read = parser.scan(unit, depth: 2),
            read.literal(#"{"type":"content_block_delta","index":"#), let index = read.smallInteger(),
            let last = lastDeltaBlock, last.index == index
        else { return false }
        switch last.block {
        case .text(let id):
            guard read.literal(#","delta":{"type":"text_delta","text":""#), let text = read.stringContent(),
                read.literal("}}"), read.isAtEnd
            else { return false }
            if !text.raw.isEmpty { try text.withDecoded { try textDelta(id, CheckedUTF8(unchecked: $0)) } }
            return true
        case .tool(let id, _):
            guard read.literal(#","delta":{"type":"input_json_delta","partial_json":""#), let text = read.string(),
                read.literal("}}"), read.isAtEnd
            else { return false }
            if !text.isEmpty {
                appendToolInput(text, index: index)
                try emit(.toolInputDelta(id: id, delta: text))
            }
            return true
        case .reasoning, .ignored:
            return false
        }
    }
}
