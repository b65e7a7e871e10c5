// Text deltas read by position: a streamed reply sends one event per token,
// `{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_…","output_index":0,
// "content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"…"}`, and parsing each with the
// JSON parser costs more than the rest of the work on it. A delta to the part the last delta went
// to is scanned member by member (ChatStreamJSON's JSONScan): its text is lent straight from the
// unit, or decoded into a temporary copy when it holds two-character escapes; every member the
// general path does not read is skipped (checked); any other shape, another part, or a text with a
// `\u` escape goes the general way, which yields the same events (or the same error).
//
// What the general path reads of an `output_text.delta` whose `output_index` is an integer:
// `type`, `delta`, `output_index` and `content_index` (`item_id` only without an integer
// `output_index`).

import ChatStreamBytes
import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

extension OpenAIResponsesDialect {
    /// Reads `unit` as an `output_text.delta` with a text without `\u` escapes for the part `last` (the
    /// part the last delta went to), and lends the text as the general path does; false, with
    /// nothing done, otherwise.
    mutating func decodeTextDeltaByPosition(
        _ unit: FramedUnit, to last: (outputIndex: Int, part: Int, id: String), textDelta: TextDeltaSink
    ) throws -> Bool {
        guard var read = parser.scanMembers(unit, depth: 1), read.literal("{") else {
            return false
        }
        var isTextDelta = false
        var text: JSONScan.StringContent? = nil
        var outputIndex: Int? = nil
        var contentIndex: Int? = nil
        repeat {
            guard let key = read.memberKey() else { return false }
            if key.sameBytes(as: "type") {
                guard !isTextDelta, read.literal(#""response.output_text.delta""#) else { return false }
                isTextDelta = true
            } else if key.sameBytes(as: "delta") {
                guard text == nil, read.literal("\""), let delta = read.checkedStringContent() else { return false }
                text = delta
            } else if key.sameBytes(as: "output_index") {
                guard outputIndex == nil, let index = read.smallInteger() else { return false }
                outputIndex = index
            } else if key.sameBytes(as: "content_index") {
                guard contentIndex == nil, let index = read.smallInteger() else { return false }
                contentIndex = index
            } else {
                guard read.skipValue(depth: 1) else { return false }
            }
            guard let more = read.moreMembers() else { return false }
            if !more { break }
        } while true
        guard read.isAtEnd, isTextDelta, let text, outputIndex == last.outputIndex, (contentIndex ?? 0) == last.part
        else { return false }
        if !text.raw.isEmpty { try text.withDecoded { try textDelta(last.id, CheckedUTF8(unchecked: $0)) } }
        return true
    }
}
