// Text elements read by position: a streamed reply sends one array element per piece of text,
// `{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],
// "usageMetadata":{"promptTokenCount":9},"modelVersion":"gemini-2.0-flash","responseId":"…"}`,
// and parsing each with the JSON parser costs more than the rest of the work on it. The usual
// element is scanned member by member (ChatStreamJSON's JSONScan): the one text part of candidate
// 0 is lent straight from the unit (or, when it holds two-character escapes such as `\n`, from a
// decoded copy); every member the general path does not read is skipped (checked), and a
// `usageMetadata` object must be the bytes of the usage last emitted (so it is the same value and
// the general path would emit nothing for it). Any other shape, or a text with a `\u` escape, goes
// the general way, which yields the same events (or the same error). An element that is the last
// one read this way but for its text (Gemini repeats everything else, usage and response ID
// included) is read through that shape (ChatStreamJSON's JSONScan.RepeatedShape): its text checked
// and the rest compared, while the last usage stays what it was when the shape was taken.
//
// What the general path reads of an element once the message has started: `error`, `candidates`
// (its first element only), `usageMetadata` and, without a finish reason, `promptFeedback`; a
// candidate's `content` and `finishReason`; a content's `parts`; a part's `text` and `thought`
// (and `functionCall`, `inlineData` when `text` is not a string).

import ChatStreamBytes
import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

extension GeminiDialect {
    /// Reads `unit` as an element whose candidate 0 has one text part (a non-empty text without
    /// a `\u` escape, no `thought`) and no finish reason, with no error, no prompt feedback and the
    /// last usage again (or none), and does what the general path does with it; false, with
    /// nothing done, otherwise. Only once the message has started.
    mutating func decodeTextElementByPosition(
        _ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink
    ) throws -> Bool {
        if let matched = repeatedElement.match(unit.data, depth: 6, configuration: parser.configuration),
            matched.scan.isAtEnd, !matched.content.raw.isEmpty
        {
            try matched.content.withDecoded { try parts.text($0, textDelta: textDelta, emit: emit) }
            return true
        }
        guard var read = parser.scanMembers(unit, depth: 6), read.literal("{") else {
            return false
        }
        var text: JSONScan.StringContent? = nil
        repeat {
            guard let key = read.memberKey() else { return false }
            if key.sameBytes(as: "candidates") {
                guard text == nil, let first = Self.readCandidates(&read) else { return false }
                text = first
            } else if key.sameBytes(as: "usageMetadata") {
                let isObject = read.next == UInt8(ascii: "{")
                guard let usage = read.skippedValue(depth: 1) else { return false }
                if isObject {
                    guard lastUsageBytes.withUnsafeBytes({ usage.sameBytes(as: $0) }) else { return false }
                }
            } else if key.sameBytes(as: "error") || key.sameBytes(as: "promptFeedback") {
                return false
            } else {
                guard read.skipValue(depth: 1) else { return false }
            }
            guard let more = read.moreMembers() else { return false }
            if !more { break }
        } while true
        guard read.isAtEnd, let text else { return false }
        repeatedElement.record(unit.data, content: text.raw, suffixEnd: unit.data.count)
        try text.withDecoded { try parts.text($0, textDelta: textDelta, emit: emit) }
        return true
    }

    /// `[…]` after `"candidates":`: candidate 0's one text (the others skipped); nil when
    /// candidate 0 is not a candidate of that kind.
    private static func readCandidates(_ read: inout JSONScan) -> JSONScan.StringContent? {
        guard read.literal("[{") else { return nil }
        var text: JSONScan.StringContent? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "content") {
                guard text == nil, read.literal("{"), let content = readContent(&read) else { return nil }
                text = content
            } else if key.sameBytes(as: "finishReason") {
                return nil
            } else {
                guard read.skipValue(depth: 3) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        // The other candidates, not read.
        while read.literal(",") {
            guard read.skipValue(depth: 2) else { return nil }
        }
        guard read.literal("]") else { return nil }
        return text
    }

    /// A content's members after its `{`: the text of its one part.
    private static func readContent(_ read: inout JSONScan) -> JSONScan.StringContent? {
        var text: JSONScan.StringContent? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "parts") {
                guard text == nil, read.literal("[{"), let part = readTextPart(&read), read.literal("]") else {
                    return nil
                }
                text = part
            } else {
                guard read.skipValue(depth: 4) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        return text
    }

    /// A part's members after its `{`: its `text`, when that is a non-empty string without a
    /// `\u` escape and the part has no `thought`.
    private static func readTextPart(_ read: inout JSONScan) -> JSONScan.StringContent? {
        var text: JSONScan.StringContent? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "text") {
                guard text == nil, read.literal("\""), let part = read.checkedStringContent(), !part.raw.isEmpty
                else { return nil }
                text = part
            } else if key.sameBytes(as: "thought") {
                return nil
            } else {
                guard read.skipValue(depth: 6) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        return text
    }
}
