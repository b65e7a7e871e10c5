// JSONParser+Strings: where a string token's bytes come from.
//
// What: strings without escapes stay where they are in the payload (the tape records an offset,
// the payload having been checked as UTF-8); a string with escapes takes yajl's unescaping unless
// its output could hold a surrogate artefact (yajl turns a lone surrogate escape into "?" or into
// an encoded surrogate), and is then unescaped here from the raw input.
// Why: copying nothing is the common case's speed, and yajl's surrogate handling differs from
// JSON's (and from the other readers of this package, which give U+FFFD).
//
// For example, in `{"k":"Ada"}` the string `Ada` is recorded as bytes 6..<9 of the input;
// `"caf\u00e9"` comes from yajl's buffer as `café`, which holds no `?`, 0xED or byte of 0xF0 and
// up, so it is kept; `"\ud800"` comes from yajl as `?`, so it is unescaped here, giving U+FFFD.
// A top-level `"hi"` comes from yajl's buffer although it has no escape; it is found back in the
// input between its quotes.

internal import CYajl
import ChatStreamBytes

extension JSONParser {
    @inline(__always)
    func onString(_ kind: JSONTapeToken.Kind, _ pointer: UnsafePointer<UInt8>?, _ length: Int) -> Int32 {
        // The usual string: no escapes, so yajl points into our input, which `fill` has checked
        // as UTF-8; the token points there too. (Not nil, not before the input, not past it.)
        if let pointer, let base = input.baseAddress, UnsafeRawPointer(pointer) >= base,
            UnsafeRawPointer(pointer) + length <= base + input.count, length <= configuration.maxStringBytes,
            tape.appendInputStringIfRoom(kind, offset: base.distance(to: UnsafeRawPointer(pointer)), count: length)
        {
            return kind == .key ? 1 : valueDone()
        }
        return JSONParser.onOtherString(self, kind, pointer, length)
    }

    /// Every string but the usual one: over the length limit, unescaped by yajl into its own
    /// buffer, or in the input when the token array must grow.
    @inline(never)
    static func onOtherString(
        _ parser: JSONParser, _ kind: JSONTapeToken.Kind, _ pointer: UnsafePointer<UInt8>?, _ length: Int
    ) -> Int32 {
        parser.otherString(kind, pointer, length)
    }

    @inline(__always)
    func otherString(_ kind: JSONTapeToken.Kind, _ pointer: UnsafePointer<UInt8>?, _ length: Int) -> Int32 {
        if length <= configuration.maxStringBytes, let pointer, let base = input.baseAddress,
            UnsafeRawPointer(pointer) >= base, UnsafeRawPointer(pointer) + length <= base + input.count
        {
            tape.appendInputString(kind, offset: base.distance(to: UnsafeRawPointer(pointer)), count: length)
        } else if let error = appendOtherString(kind, UnsafeRawBufferPointer(start: pointer, count: length)) {
            return fail(error)
        }
        // A top-level string (an AI SDK v4 part) ends its value: counted here, without a further call.
        if kind != .key, depth == 0 { countTopLevelValue() }
        return 1
    }

    /// A string over the length limit, or one yajl has unescaped into its own buffer.
    @inline(never)
    func appendOtherString(_ kind: JSONTapeToken.Kind, _ decoded: UnsafeRawBufferPointer) -> JSONError? {
        guard decoded.count <= configuration.maxStringBytes else {
            return JSONError(
                .stringTooLong, byteOffset: tokenEnd,
                message: "a string of \(decoded.count) bytes is over the limit of \(configuration.maxStringBytes)")
        }
        if let offset = unescapedInInput(count: decoded.count) {
            tape.appendInputString(kind, offset: offset, count: decoded.count)
            return nil
        }
        if JSONParser.yajlDecodingIsOurs(decoded) {
            tape.appendBytes(kind, decoded)
            return nil
        }
        return appendEscapedString(kind, decoded: decoded)
    }

    /// Where in the input the string yajl has just lexed starts, when it had no escapes: yajl
    /// hands a top-level string (a v4 `0:"text"` part) from its own buffer even then. The token
    /// ends at the closing quote; `count` bytes before it, the opening quote must stand, not
    /// preceded by a backslash. (A quote inside the string has an odd run of backslashes before
    /// it, and with an escape the decoded text is shorter than the raw one, so the quote found
    /// there is not the opening one.) Then the raw bytes are the string's, already checked as UTF-8.
    @inline(__always)
    func unescapedInInput(count: Int) -> Int? {
        guard let base = input.baseAddress else { return nil }
        let end = Int(yajl_get_bytes_consumed(handle)) - 1  // the closing quote
        let start = end - count
        guard start >= 1, end < input.count, base.load(fromByteOffset: end, as: UInt8.self) == UInt8(ascii: "\""),
            base.load(fromByteOffset: start - 1, as: UInt8.self) == UInt8(ascii: "\""),
            start < 2 || base.load(fromByteOffset: start - 2, as: UInt8.self) != UInt8(ascii: "\\")
        else { return nil }
        return start
    }

    /// Whether yajl's unescaping of a string is exactly ours, judged from its output. The two
    /// differ only on surrogate escapes: yajl writes `?` for a lone high surrogate, an encoded
    /// surrogate (lead byte 0xED) for a lone low one, and a four-byte sequence (lead 0xF0-0xF4)
    /// for a high surrogate followed by any `\u` escape. Output without `?`, 0xED or a byte of
    /// 0xF0 or more cannot have come from one (raw bytes were checked as UTF-8 before parsing).
    /// Eight bytes at a time.
    static func yajlDecodingIsOurs(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var flags: UInt64 = 0
        @inline(__always) func take(_ word: UInt64) {
            flags |= WordLanes.bytes(word, equalTo: 0x3F)  // ?
            flags |= WordLanes.bytes(word, equalTo: 0xED)
            flags |= WordLanes.bytes(word & 0xF0F0_F0F0_F0F0_F0F0, equalTo: 0xF0)  // 0xF0...0xFF
        }
        var i = 0
        if count >= 8 {
            while i &+ 8 <= count {
                take(base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i &+= 8
            }
            // The tail as the last eight bytes (overlapping bytes already seen; harmless).
            if i < count { take(base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)) }
            return flags == 0
        }
        while i < count {
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            if byte == 0x3F || byte == 0xED || byte >= 0xF0 { return false }
            i &+= 1
        }
        return true
    }

    /// Unescapes the string that yajl has just lexed from the raw input, found by walking back
    /// from the end of the token to its opening quote.
    func appendEscapedString(_ kind: JSONTapeToken.Kind, decoded: UnsafeRawBufferPointer) -> JSONError? {
        let end = Int(yajl_get_bytes_consumed(handle)) - 1  // the closing quote
        guard input.baseAddress != nil, end > 0, end < input.count, input[end] == UInt8(ascii: "\"") else {
            // Not expected with whole payloads; keep yajl's own decoding, checked.
            if let bad = UTF8Validation.firstInvalidIndex(decoded) {
                return JSONError(
                    .invalidUTF8, byteOffset: tokenEnd - decoded.count + bad, message: "invalid UTF-8 in a string")
            }
            tape.appendBytes(kind, decoded)
            return nil
        }
        var start = end - 1
        while start >= 0 {
            if input[start] == UInt8(ascii: "\"") {
                var backslashes = 0
                while start - 1 - backslashes >= 0, input[start - 1 - backslashes] == UInt8(ascii: "\\") {
                    backslashes += 1
                }
                if backslashes % 2 == 0 { break }
            }
            start -= 1
        }
        let raw = UnsafeRawBufferPointer(rebasing: input[(start + 1)..<end])
        let arenaStart = tape.arenaCount
        if let error = JSONStringUnescaper.unescape(raw, into: tape, streamOffset: streamOffset + start + 1) {
            tape.truncateArena(to: arenaStart)
            return error
        }
        tape.appendArenaTail(kind, from: arenaStart)
        return nil
    }
}
