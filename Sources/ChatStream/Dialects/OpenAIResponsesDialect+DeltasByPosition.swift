// Text deltas read by position: a streamed reply sends one event per token,
// `{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_…","output_index":0,
// "content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"…"}`, and parsing each with the
// JSON parser costs more than the rest of the work on it. A delta to the part the last delta went
// to is scanned member by member (ChatStreamJSON's JSONScan): its text is lent straight from the
// unit, or decoded into a temporary copy when it holds two-character escapes; every member the
// general path does not read is skipped (checked); any other shape, another part, or a text with a
// `\u` escape goes the general way, which yields the same events (or the same error). A delta whose
// bytes before its text are the last such delta's but for its `sequence_number` is read through
// that shape (ChatStreamJSON's JSONScan.RepeatedShape): its type and indexes are the last one's.
//
// What the general path reads of an `output_text.delta` whose `output_index` is an integer:
// `type`, `delta`, `output_index` and `content_index` (`item_id` only without an integer
// `output_index`).

import ChatStreamBytes
import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

extension OpenAIResponsesDialect {
    /// The members of a delta read so far, and what a shape of it needs: the range of the digits
    /// of a `sequence_number` before the text, and where the text ends when the type and both
    /// indexes came before it (0 otherwise).
    struct DeltaMembers {
        var isTextDelta = false
        var text: JSONScan.StringContent? = nil
        var outputIndex: Int? = nil
        var contentIndex: Int? = nil
        var sequenceNumber: Range<Int>? = nil
        var textEnd = 0
    }

    /// Reads `unit` as an `output_text.delta` with a text without `\u` escapes for the part `last` (the
    /// part the last delta went to), and lends the text as the general path does; false, with
    /// nothing done, otherwise.
    mutating func decodeTextDeltaByPosition(
        _ unit: FramedUnit, to last: (outputIndex: Int, part: Int, id: String), textDelta: TextDeltaSink
    ) throws -> Bool {
        guard let members = readRepeatedDelta(unit.data) ?? readDelta(unit), members.isTextDelta,
            let text = members.text, members.outputIndex == last.outputIndex, (members.contentIndex ?? 0) == last.part
        else { return false }
        if !text.raw.isEmpty { try text.withDecoded { try textDelta(last.id, CheckedUTF8(unchecked: $0)) } }
        return true
    }

    /// The delta read member by member, its shape remembered for the next one when its text
    /// comes after its type and both indexes (JSONScan.RepeatedShape: the bytes before the text, with
    /// a hole for `sequence_number`, which counts the events).
    private mutating func readDelta(_ unit: FramedUnit) -> DeltaMembers? {
        guard var read = parser.scanMembers(unit, depth: 1), read.literal("{") else { return nil }
        var members = DeltaMembers()
        guard Self.readMembers(&read, &members, afterValue: false) else { return nil }
        if let text = members.text, members.textEnd > 0 {
            repeatedDelta.record(
                unit.data, content: text.raw, suffixEnd: members.textEnd, number: members.sequenceNumber)
            repeatedDeltaIndexes = (members.outputIndex, members.contentIndex)
        }
        return members
    }

    /// The delta read through the last one's shape: the same bytes before its text (but for
    /// the sequence number), so the same type and indexes; the members after the text are read
    /// as in full. Nil when the shape does not match or the rest does not read.
    private func readRepeatedDelta(_ data: UnsafeRawBufferPointer) -> DeltaMembers? {
        guard let matched = repeatedDelta.match(data, depth: 1, configuration: parser.configuration) else { return nil }
        var read = matched.scan
        var members = DeltaMembers(
            isTextDelta: true, text: matched.content, outputIndex: repeatedDeltaIndexes.output,
            contentIndex: repeatedDeltaIndexes.content)
        guard Self.readMembers(&read, &members, afterValue: true) else { return nil }
        return members
    }

    /// A delta's members from the scan's place (after its `{`, or after a member's value when
    /// `afterValue`) to its end, into `members` (a shape's `textEnd` only when the type and both
    /// indexes came before the text, so a shape taken up to the text holds them); every other
    /// member skipped (checked). False on a member read twice, anything else, or bytes after the end.
    private static func readMembers(_ read: inout JSONScan, _ members: inout DeltaMembers, afterValue: Bool) -> Bool {
        var afterValue = afterValue
        while let step = read.nextMember(afterValue: afterValue) {
            guard case .key(let key) = step else { return read.isAtEnd }
            afterValue = true
            if key.sameBytes(as: "type") {
                guard !members.isTextDelta, read.literal(#""response.output_text.delta""#) else { return false }
                members.isTextDelta = true
            } else if key.sameBytes(as: "delta") {
                guard members.text == nil, read.literal("\""), let delta = read.checkedStringContent() else {
                    return false
                }
                members.text = delta
                if members.isTextDelta, members.outputIndex != nil, members.contentIndex != nil {
                    members.textEnd = read.offset
                }
            } else if key.sameBytes(as: "output_index") {
                guard members.outputIndex == nil, let index = read.smallInteger() else { return false }
                members.outputIndex = index
            } else if key.sameBytes(as: "content_index") {
                guard members.contentIndex == nil, let index = read.smallInteger() else { return false }
                members.contentIndex = index
            } else if members.text == nil, key.sameBytes(as: "sequence_number") {
                let start = read.offset
                guard read.skipValue(depth: 1) else { return false }
                members.sequenceNumber = start..<read.offset
            } else {
                guard read.skipValue(depth: 1) else { return false }
            }
        }
        return false
    }
}
