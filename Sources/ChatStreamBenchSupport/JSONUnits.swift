// JSONUnits: where each unit's JSON sits in a stream of one of the bench's formats, found the way
// the simdjson program frames it (one pass over the lines), for the report's yajl side.
//
// The yajl copy ceiling of `chatstream-bench --report` is a process of its own reading the same
// file as simdjson and ChatStream, so it frames too: server-sent events give each `data:` value
// (`[DONE]` is not JSON), AI SDK v4 the JSON after a line's `N:`, NDJSON each line, and the
// element-per-line JSON array each line without its `[`, `,`, `]` and carriage return. Lines end at
// a line feed; a carriage return before it is dropped.

/// The JSON ranges of a stream in one of the formats `chatstream replay --format` names.
package enum JSONUnits {
    /// `(offset, length)` of every unit's JSON in `bytes` for `format`, or nil for a format this
    /// framing does not know.
    package static func ranges(in bytes: UnsafeRawBufferPointer, format: String) -> [(Int, Int)]? {
        let kind: Kind
        switch format {
        case "ui-message-stream", "openai-chat", "anthropic", "openai-responses": kind = .serverSentEvents
        case "ai-sdk-v4": kind = .dataStreamV4
        case "ndjson": kind = .lines
        case "json-array": kind = .arrayElements
        default: return nil
        }
        var ranges: [(Int, Int)] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            let next = end + 1
            if end > start && bytes[end - 1] == 0x0D { end -= 1 }
            if let unit = kind.unit(bytes, start, end) { ranges.append(unit) }
            start = next
        }
        return ranges
    }

    private enum Kind {
        case serverSentEvents, dataStreamV4, lines, arrayElements

        /// The unit in the line `bytes[start..<end]`, or nil when the line holds none.
        func unit(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> (Int, Int)? {
            var low = start
            var high = end
            switch self {
            case .serverSentEvents:
                let prefix: [UInt8] = Array("data:".utf8)
                guard high - low >= prefix.count, prefix.indices.allSatisfy({ bytes[low + $0] == prefix[$0] }) else {
                    return nil
                }
                low += prefix.count
                if low < high && bytes[low] == 0x20 { low += 1 }
                let done: [UInt8] = Array("[DONE]".utf8)
                if high - low == done.count && done.indices.allSatisfy({ bytes[low + $0] == done[$0] }) { return nil }
            case .dataStreamV4:
                while low < high && bytes[low] != UInt8(ascii: ":") { low += 1 }
                low += 1
            case .lines:
                break
            case .arrayElements:
                if low < high && (bytes[low] == UInt8(ascii: "[") || bytes[low] == UInt8(ascii: ",")) { low += 1 }
                if low < high && bytes[high - 1] == UInt8(ascii: "]") && low < high - 1
                    && bytes[low] == UInt8(ascii: "{")
                    && bytes[high - 2] == UInt8(ascii: "}")
                {
                    high -= 1
                } else if high - low == 1 && bytes[low] == UInt8(ascii: "]") {
                    return nil
                }
            }
            return high > low ? (low, high - low) : nil
        }
    }
}
