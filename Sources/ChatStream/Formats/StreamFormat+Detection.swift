// Format detection: from protocol headers when the transport has them, else from the first
// bytes. Detection from bytes decides only on complete lines (or on an unambiguous first byte),
// so the answer never depends on how the input was chunked.
import ChatStreamBytes

extension StreamFormat {
    /// The format that response headers announce, if they are decisive.
    ///
    /// `x-vercel-ai-ui-message-stream: v1` means the UI message stream, `x-vercel-ai-data-stream: v1`
    /// the v4 data stream, `application/x-ndjson` NDJSON. `text/event-stream` alone is not
    /// decisive (several formats use SSE): detect from the bytes then.
    public static func detect(headers: [(name: String, value: String)]) -> StreamFormat? {
        var contentType = ""
        for (name, value) in headers {
            switch name.lowercased() {
            case "x-vercel-ai-ui-message-stream": return .uiMessageStream
            case "x-vercel-ai-data-stream": return .aiSDKv4
            case "content-type": contentType = value.lowercased()
            default: break
            }
        }
        if contentType.hasPrefix("application/x-ndjson") || contentType.hasPrefix("application/ndjson") {
            return .ndjson
        }
        return nil
    }

    /// The result of looking at the first bytes of a stream.
    public enum Detection: Sendable, Hashable {
        case format(StreamFormat)
        /// Not decided yet: feed more bytes.
        case needMoreBytes
        /// These bytes are no format ChatStream knows.
        case unknown
    }

    /// Detects the format from the stream's first bytes; `isComplete` says no more will come.
    public static func detect(prefix bytes: UnsafeRawBufferPointer, isComplete: Bool) -> Detection {
        var progress = DetectionProgress()
        return detect(prefix: bytes, isComplete: isComplete, resuming: &progress)
    }

    /// How far detection got through bytes that did not decide yet, so the next call with more
    /// bytes of the same prefix goes on from there instead of reading them all again (fed a byte
    /// at a time, a long undecided prefix would otherwise cost its length squared).
    struct DetectionProgress {
        /// The leading byte-order mark and whitespace skipped so far.
        var skipped = 0
        /// Where the first line not yet classified starts; nil before the first other byte.
        var lineStart: Int?
        /// How far that line has been searched for its end.
        var searched = 0
        /// Whether a line seen so far was SSE (a comment, `id:`, `retry:` or a blank line after one).
        var sawSSE = false
    }

    /// ``detect(prefix:isComplete:)`` going on from `progress`, which it updates: `bytes` must be
    /// the bytes of the earlier calls with more after them.
    static func detect(
        prefix bytes: UnsafeRawBufferPointer, isComplete: Bool, resuming progress: inout DetectionProgress
    ) -> Detection {
        guard bytes.count >= 3 || isComplete else {
            // A byte-order mark may still be arriving: decide these few bytes afresh each time.
            var fresh = DetectionProgress()
            return detectLines(bytes, isComplete: isComplete, &fresh)
        }
        return detectLines(bytes, isComplete: isComplete, &progress)
    }

    private static func detectLines(
        _ bytes: UnsafeRawBufferPointer, isComplete: Bool, _ progress: inout DetectionProgress
    ) -> Detection {
        if progress.lineStart == nil {
            var i = progress.skipped
            if i == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
                i += 1
            }
            progress.skipped = i
            guard i < bytes.count else { return isComplete ? .unknown : .needMoreBytes }
            switch bytes[i] {
            case UInt8(ascii: "["): return .format(.jsonArray)
            case UInt8(ascii: "{"): return .format(.ndjson)
            default: progress.lineStart = i
            }
        }
        // Walk complete lines in order; the first decisive one wins.
        var lineStart = progress.lineStart ?? 0
        while lineStart < bytes.count {
            var end = max(lineStart, progress.searched)
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            guard end < bytes.count || isComplete else {
                progress.lineStart = lineStart
                progress.searched = end
                return .needMoreBytes
            }
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<end])
            if let decided = classify(line: line, sawSSE: &progress.sawSSE) { return .format(decided) }
            if !progress.sawSSE { return .unknown }
            lineStart = end + 1
        }
        progress.lineStart = lineStart
        return isComplete ? (progress.sawSSE ? .format(.uiMessageStream) : .unknown) : .needMoreBytes
    }

    /// What one complete line says about the format, read as bytes (the first 4,096 of it).
    private static func classify(line whole: UnsafeRawBufferPointer, sawSSE: inout Bool) -> StreamFormat? {
        let line = UnsafeRawBufferPointer(rebasing: whole.prefix(4096))
        if line.isEmpty || line.hasPrefix(":") || line.hasPrefix("id:") || line.hasPrefix("retry:") {
            if sawSSE || !line.isEmpty { sawSSE = true }
            return nil
        }
        if line.hasPrefix("event:") {
            sawSSE = true
            let name = line.droppingFieldName(6)
            if name.hasPrefix("response.") { return .openAIResponses }
            for anthropic in ["message_start", "content_block_start", "ping", "message_delta", "content_block_delta"]
                as [StaticString]
            where name.sameBytes(as: anthropic) {
                return .anthropic
            }
            return nil
        }
        if line.hasPrefix("data:") {
            sawSSE = true
            var compact: [UInt8] = []
            compact.reserveCapacity(line.count)
            for byte in line.droppingFieldName(5) where byte != 0x20 { compact.append(byte) }
            return compact.withUnsafeBytes(classify(compactData:))
        }
        // `CODE:JSON` lines of the v4 data stream: a short alphanumeric code, a colon, JSON.
        if let colon = line.prefix(3).firstIndex(of: UInt8(ascii: ":")), colon > 0,
            line[..<colon].allSatisfy(Self.isASCIIAlphanumeric)
        {
            return .aiSDKv4
        }
        return nil
    }

    /// What the value of a `data:` line, without its spaces, says about the format.
    private static func classify(compactData data: UnsafeRawBufferPointer) -> StreamFormat {
        if data.sameBytes(as: "[DONE]") { return .uiMessageStream }
        if data.contains(#""object":"chat.completion.chunk""#) || data.contains(#""choices":"#) {
            return .openAIChat
        }
        if data.contains(#""type":"response."#) { return .openAIResponses }
        for marker in [
            #""type":"message_start""#, #""type":"content_block_start""#, #""type":"content_block_delta""#,
            #""type":"message_delta""#, #""type":"ping""#,
        ] as [StaticString]
        where data.contains(marker) {
            return .anthropic
        }
        if data.contains(#""type":"#) { return .uiMessageStream }
        if data.contains(#""error":"#) { return .openAIChat }
        return .uiMessageStream
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}

extension UnsafeRawBufferPointer {
    /// The value of an SSE field whose name and colon take `count` bytes (one leading space dropped).
    fileprivate func droppingFieldName(_ count: Int) -> UnsafeRawBufferPointer {
        let value = UnsafeRawBufferPointer(rebasing: self[count...])
        return value.first == 0x20 ? UnsafeRawBufferPointer(rebasing: value.dropFirst()) : value
    }

    fileprivate func contains(_ text: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard let first = needle.first, count >= needle.count else { return false }
        var start = 0
        while start + needle.count <= count {
            // The next place the needle's first byte occurs, then the rest compared there.
            guard let hit = self[start...(count - needle.count)].firstIndex(of: first) else { return false }
            if UnsafeRawBufferPointer(rebasing: self[hit..<(hit + needle.count)]).sameBytes(as: text) { return true }
            start = hit + 1
        }
        return false
    }
}
