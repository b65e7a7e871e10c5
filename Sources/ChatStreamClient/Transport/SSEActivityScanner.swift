// SSEActivityScanner: tells the transport's idle watchdog when a server-sent event is complete,
// without decoding the stream (the client's decoder does that above the transport).
//
// It keeps only the first few bytes of the current line (enough to tell `data` and the keep-alive
// comment apart), its length, and whether the current block has had a `data` field, so its memory
// is constant however long a line runs. Line breaks are CR, LF or CRLF (a CRLF split across chunks
// is one break), as in the SSE specification; the result never depends on how bytes are chunked.

/// Counts complete server-sent events (and, optionally, one keep-alive comment) in a byte stream.
struct SSEActivityScanner {
    private let keepAlive: [UInt8]?
    private let prefixCapacity: Int
    /// The first `prefixCapacity` bytes of the line being read.
    private var prefix: [UInt8] = []
    private var lineLength = 0
    private var afterCR = false
    private var blockHasData = false
    /// Bytes of a leading UTF-8 byte order mark matched so far (the stream's first bytes), nil once decided.
    private var byteOrderMarkMatched: Int? = 0
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A scanner; `keepAliveComment` is a comment text that counts as activity (nil: none).
    init(keepAliveComment: [UInt8]?) {
        keepAlive = keepAliveComment
        prefixCapacity = max(5, (keepAliveComment?.count ?? 0) + 2)
        prefix.reserveCapacity(prefixCapacity)
    }

    /// Feeds bytes; returns how many events (and keep-alive comments) they completed.
    mutating func feed(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { feed($0) }
    }

    /// Feeds bytes in place; returns how many events (and keep-alive comments) they completed.
    mutating func feed(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        var completed = 0
        var index = 0
        let end = buffer.count
        while index < end, let matched = byteOrderMarkMatched {
            // One leading byte order mark is not part of the first line (as the SSE parser skips it).
            let byte = buffer[index]
            if byte == Self.byteOrderMark[matched] {
                byteOrderMarkMatched = matched + 1 == Self.byteOrderMark.count ? nil : matched + 1
                index += 1
                continue
            }
            byteOrderMarkMatched = nil
            for earlier in Self.byteOrderMark.prefix(matched) { appendToLine(earlier) }
        }
        while index < end {
            let byte = buffer[index]
            if byte == 0x0A || byte == 0x0D {
                let isSecondHalfOfCRLF = byte == 0x0A && afterCR
                afterCR = byte == 0x0D
                if !isSecondHalfOfCRLF, endLine() { completed += 1 }
                index += 1
                continue
            }
            // The rest of the line up to its break: only its first bytes and its length matter.
            var lineEnd = index + 1
            while lineEnd < end, buffer[lineEnd] != 0x0A, buffer[lineEnd] != 0x0D { lineEnd += 1 }
            afterCR = false
            let kept = min(lineEnd - index, prefixCapacity - min(prefixCapacity, lineLength))
            if kept > 0 { prefix.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index..<index + kept])) }
            lineLength &+= lineEnd - index
            index = lineEnd
        }
        return completed
    }

    /// A byte of the current line (not a line break).
    private mutating func appendToLine(_ byte: UInt8) {
        afterCR = false
        if lineLength < prefixCapacity { prefix.append(byte) }
        lineLength &+= 1
    }

    /// Ends the current line; true when it completed an event or was the keep-alive comment.
    private mutating func endLine() -> Bool {
        defer {
            prefix.removeAll(keepingCapacity: true)
            lineLength = 0
        }
        if lineLength == 0 {
            let dispatched = blockHasData
            blockHasData = false
            return dispatched
        }
        if prefix[0] == UInt8(ascii: ":") {
            guard let keepAlive else { return false }
            var text = prefix.dropFirst()
            var length = lineLength - 1
            if text.first == UInt8(ascii: " ") {
                text = text.dropFirst()
                length -= 1
            }
            return length == keepAlive.count && text.elementsEqual(keepAlive)
        }
        // The field name is everything before the first colon (the whole line when there is none).
        let name = Array("data".utf8)
        if lineLength == 4, prefix.elementsEqual(name) { blockHasData = true }
        if lineLength > 4, prefix.prefix(4).elementsEqual(name), prefix[4] == UInt8(ascii: ":") {
            blockHasData = true
        }
        return false
    }
}
