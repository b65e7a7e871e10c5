// Content chunks read by position: a streamed reply sends one chunk per token,
// `{"id":…,"object":"chat.completion.chunk","created":…,"model":…,"system_fingerprint":…,
// "choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}`, and
// parsing each with the JSON parser costs more than the rest of the work on it. The usual chunk
// is scanned member by member (ChatStreamJSON's JSONScan): its one choice's text, when it has no
// escapes, is lent straight from the unit; every member the general path does not read is
// skipped (checked); any other shape, or a text with escapes, goes the general way, which yields
// the same events (or the same error).
//
// What the general path reads of a chunk once the message has started, and so what this read
// must understand rather than skip: `error`, `choices` and `usage` at the top (`finish_reason`
// there only when `choices` is empty); a choice's `index`, `delta` and `finish_reason`; a delta's
// `content`, `refusal`, `tool_calls`, `reasoning_content`, `reasoning` and `reasoning_details`.

import ChatStreamBytes
import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

extension OpenAIChatDialect {
    /// Reads `unit` as a chunk of one choice whose delta's only content is a non-empty text
    /// without escapes (its other readable members null or absent, no usage object, no error),
    /// and does what the general path does with it; false, with nothing done, otherwise. Only
    /// once the message has started (the general path reads the first chunk's `id`).
    mutating func decodeContentChunkByPosition(
        _ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink
    ) throws -> Bool {
        guard var read = parser.scanMembers(unit, depth: 4), read.literal("{") else {
            return false
        }
        var choice: (index: Int, text: UnsafeRawBufferPointer)? = nil
        repeat {
            guard let key = read.memberKey() else { return false }
            if key.sameBytes(as: "choices") {
                guard choice == nil, let one = Self.readOnlyChoice(&read) else { return false }
                choice = one
            } else if key.sameBytes(as: "usage") {
                // Not an object: not read (the general path reads an object only).
                guard read.next != UInt8(ascii: "{"), read.skipValue(depth: 1) else { return false }
            } else if key.sameBytes(as: "error") {
                return false
            } else {
                guard read.skipValue(depth: 1) else { return false }
            }
            guard let more = read.moreMembers() else { return false }
            if !more { break }
        } while true
        guard read.isAtEnd, let (k, text) = choice else { return false }
        // What the general path does with it, in its order.
        if choices.count <= k { choices.append(contentsOf: repeatElement(Choice(), count: k + 1 - choices.count)) }
        choices[k].seen = true
        try textDelta(openText(k, textDelta: textDelta, emit: emit), CheckedUTF8(unchecked: text))
        return true
    }

    /// `[{…}]` after `"choices":`: the one choice's index (0 when absent) and text; nil when
    /// there is not exactly one choice of that kind.
    private static func readOnlyChoice(_ read: inout JSONScan) -> (index: Int, text: UnsafeRawBufferPointer)? {
        guard read.literal("[{") else { return nil }
        var index: Int? = nil
        var text: UnsafeRawBufferPointer? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "index") {
                guard index == nil, let value = read.smallInteger(), value <= maxChoiceIndex else { return nil }
                index = value
            } else if key.sameBytes(as: "delta") {
                guard text == nil, read.literal("{"), let content = readContentDelta(&read) else { return nil }
                text = content
            } else if key.sameBytes(as: "finish_reason") {
                guard read.literal("null") else { return nil }
            } else {
                guard read.skipValue(depth: 3) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        guard let text, read.literal("]") else { return nil }
        return (index ?? 0, text)
    }

    /// A delta's members after its `{`: the text of its `content`, when that is a non-empty
    /// string without escapes and every other member the general path reads is null.
    private static func readContentDelta(_ read: inout JSONScan) -> UnsafeRawBufferPointer? {
        var text: UnsafeRawBufferPointer? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "content") {
                guard text == nil, read.literal("\""), let content = read.checkedPlainString(), !content.isEmpty
                else { return nil }
                text = content
            } else if key.sameBytes(as: "refusal") || key.sameBytes(as: "tool_calls")
                || key.sameBytes(as: "reasoning_content") || key.sameBytes(as: "reasoning")
                || key.sameBytes(as: "reasoning_details")
            {
                guard read.literal("null") else { return nil }
            } else {
                guard read.skipValue(depth: 4) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        return text
    }
}
