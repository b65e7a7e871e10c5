// JSONScan+StringBody: a string read whole by a member-by-member scan, escapes and all, and its
// two-character escapes decoded afterwards. A dialect reads a small string this way when it may
// hold escapes (a tool call's arguments, one JSON byte at a time: `\"` is one of them) and
// decides only after the whole unit is read whether to use it; a `\u` escape is left to yajl.

extension JSONScan {
    /// The content of a string whose opening quote has been read, escapes included (checked as
    /// ``skipString()`` checks them), up to and past its closing quote; nil when it is not a
    /// well-formed string (the read is then abandoned). For a scan made with
    /// ``init(members:depth:configuration:)``, which has checked its bytes.
    @inlinable
    public mutating func checkedStringBody() -> UnsafeRawBufferPointer? {
        let start = position
        guard skipString() else { return nil }
        return UnsafeRawBufferPointer(start: base + start, count: position &- 1 &- start)
    }

    /// Calls `use` with `body` (a string's content as ``checkedStringBody()`` returns it) with
    /// its two-character escapes decoded (`\n` as a newline, `\"` as a quote): `body` itself
    /// when it has no escape, else a decoded copy. Nil, without calling `use`, when `body` holds
    /// a `\u` escape (which yajl reads).
    @inlinable
    public static func withShortEscapesDecoded<R>(
        _ body: UnsafeRawBufferPointer, _ use: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R? {
        guard body.contains(UInt8(ascii: "\\")) else { return try use(body) }
        guard let decoded = decodingShortEscapes(body) else { return nil }
        return try decoded.withUnsafeBytes(use)
    }

    /// `body` with its two-character escapes decoded; nil on a `\u` escape or a lone backslash.
    @usableFromInline
    static func decodingShortEscapes(_ body: UnsafeRawBufferPointer) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(body.count)
        var i = 0
        while i < body.count {
            let byte = body[i]
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                i += 1
                continue
            }
            guard i + 1 < body.count, let unescaped = shortEscape(body[i + 1]) else { return nil }
            decoded.append(unescaped)
            i += 2
        }
        return decoded
    }
}
