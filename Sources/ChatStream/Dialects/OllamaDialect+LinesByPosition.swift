// Lines read by position: Ollama streams one line per token,
// `{"model":"llama3.2","created_at":"…","message":{"role":"assistant","content":"Hi"},"done":false}`,
// and parsing each with the JSON parser costs more than the rest of the work on it. Once the
// message has started, such a line is scanned member by member (ChatStreamJSON's JSONScan): its
// content (and thinking) is lent straight from the unit, or decoded into a temporary copy when it
// holds two-character escapes; every member the general path does not read is skipped (checked).
// Any other line (`done` not `false`, an error, tool calls, a `\u` escape) goes the general way,
// which yields the same events (or the same error). A line whose bytes are the last such line's
// but for its content and its `created_at` (a new time on every line) is read through that shape
// (ChatStreamJSON's JSONScan.RepeatedShape): one comparison instead of a member-by-member read.

import ChatStreamBytes
import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

extension OllamaDialect {
    /// Reads `unit` as a line with `"done":false`, no `error`, and a `message` object whose
    /// `content` is a string without `\u` escapes, whose `thinking`, when present, is one too, and
    /// which has no `tool_calls`; does what the general path does with it and returns true.
    /// False, with nothing done, otherwise.
    mutating func decodeLineByPosition(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws -> Bool {
        if let matched = repeatedLine.match(unit.data, depth: 2, configuration: parser.configuration),
            matched.scan.isAtEnd
        {
            // The last line's bytes around another content: a line without thinking, read as below.
            if !matched.content.raw.isEmpty {
                try matched.content.withDecoded { try parts.text($0, textDelta: textDelta, emit: emit) }
            }
            return true
        }
        guard var read = parser.scanMembers(unit, depth: 2), read.literal("{") else { return false }
        var done: Bool? = nil
        var message: (thinking: JSONScan.StringContent?, content: JSONScan.StringContent)? = nil
        var createdAt: Range<Int>? = nil
        repeat {
            guard let key = read.memberKey() else { return false }
            if createdAt == nil, message == nil, key.sameBytes(as: "created_at") {
                let start = read.offset
                guard read.skipValue(depth: 1) else { return false }
                // The content, when the value is a string (a checked string: both quotes are there).
                if unit.data[start] == UInt8(ascii: "\""), read.offset &- start >= 2 {
                    createdAt = start &+ 1..<read.offset &- 1
                }
            } else if key.sameBytes(as: "done") {
                guard done == nil, read.literal("false") else { return false }
                done = false
            } else if key.sameBytes(as: "message") {
                guard message == nil, read.literal("{"), let read = Self.readMessage(&read) else { return false }
                message = read
            } else if key.sameBytes(as: "error") {
                return false
            } else {
                guard read.skipValue(depth: 1) else { return false }
            }
            guard let more = read.moreMembers() else { return false }
            if !more { break }
        } while true
        guard read.isAtEnd, done != nil, let (thinking, content) = message else { return false }
        if thinking == nil {
            // RepeatedShape.record forgets a `created_at` that is not a string without a backslash.
            repeatedLine.record(unit.data, content: content.raw, suffixEnd: unit.data.count, string: createdAt)
            if repeatedLine.isEmpty, createdAt != nil {
                repeatedLine.record(unit.data, content: content.raw, suffixEnd: unit.data.count)
            }
        } else {
            repeatedLine.clear()
        }
        // What the general path does with it, in its order.
        if let thinking, !thinking.raw.isEmpty {
            try parts.reasoning(thinking.withDecoded { String(tapeUTF8: $0) }, textDelta: textDelta, emit: emit)
        }
        if !content.raw.isEmpty {
            try content.withDecoded { try parts.text($0, textDelta: textDelta, emit: emit) }
        }
        return true
    }

    /// A message's members after its `{`: its `content` and `thinking` strings (without `\u`),
    /// when it has a `content` and no `tool_calls`; nil otherwise.
    private static func readMessage(
        _ read: inout JSONScan
    ) -> (thinking: JSONScan.StringContent?, content: JSONScan.StringContent)? {
        var content: JSONScan.StringContent? = nil
        var thinking: JSONScan.StringContent? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "content") {
                guard content == nil, read.literal("\""), let text = read.checkedStringContent() else { return nil }
                content = text
            } else if key.sameBytes(as: "thinking") {
                guard thinking == nil, read.literal("\""), let text = read.checkedStringContent() else { return nil }
                thinking = text
            } else if key.sameBytes(as: "tool_calls") {
                return nil
            } else {
                guard read.skipValue(depth: 2) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        guard let content else { return nil }
        return (thinking, content)
    }
}
