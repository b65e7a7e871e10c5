// JSONParser: the bridge to yajl.
//
// One yajl handle per parser, configured with `yajl_allow_multiple_values` and reused for every
// payload of a stream (a fresh handle costs several allocations). Framing has already found the
// payload's boundaries, so each payload reaches yajl in one call and no token spans two calls.
//
// The callbacks capture nothing: yajl hands back an opaque context, which is this parser passed
// unretained. They live in one static struct at a fixed address for the process's life. A
// callback that fails stores the Swift error and returns 0; after `yajl_parse` returns, the
// stored error is thrown. After any error the handle is freed and a new one made, since yajl's
// state is then dead.
//
// Numbers arrive through `yajl_number` as text and are parsed in Swift (yajl's own integer path
// rejects -2^63 and its double path follows the C locale). The whole payload is checked for
// strict UTF-8 before yajl sees it (a scan finds most payloads all ASCII, and then that is all);
// strings without escapes stay where they are in the payload. A string with escapes takes
// yajl's unescaping unless its output could hold a surrogate artefact (yajl turns a lone
// surrogate escape into "?" or into an encoded surrogate); then it is unescaped here from the raw
// input. The usual case (one value, no escapes, no error) stays inline in `fill` and the
// callbacks; everything rare is in functions of its own, so the hot code stays small.

internal import CYajl
import ChatStreamBytes

/// A JSON parser over yajl that reads one complete value at a time into a reusable tape.
///
/// Use one parser per stream; it is not thread-safe. Each call parses exactly one JSON value
/// (surrounding whitespace allowed); anything else throws a ``JSONError`` with the byte offset.
///
/// ```swift
/// let parser = JSONParser()
/// let value = try parser.parseValue(Array(#"{"a":[1,2.5,"x"]}"#.utf8))
/// let name = try parser.parse(Array(#"{"name":"Ada"}"#.utf8)) { $0["name"]?.string }
/// ```
public final class JSONParser {
    /// The limits this parser enforces.
    public let configuration: JSONConfiguration

    @exclusivity(unchecked) private var handle: yajl_handle!
    @usableFromInline let tape = JSONTape()

    // State of the parse in progress.
    @exclusivity(unchecked) private var input = UnsafeRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) private var streamOffset = 0
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var completedValues = 0
    /// Where in the input the first top-level value ended (the input's end when yajl reported it
    /// during the trailing-space call).
    @exclusivity(unchecked) private var firstValueEnd = 0
    @exclusivity(unchecked) private var failure: JSONError?

    /// A parser with these limits.
    public init(configuration: JSONConfiguration = JSONConfiguration()) {
        self.configuration = configuration
        handle = JSONParser.makeHandle(context: Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { yajl_free(handle) }

    private static func makeHandle(context: UnsafeMutableRawPointer?) -> yajl_handle {
        guard let handle = yajl_alloc(callbacks, nil, context) else {
            fatalError("yajl_alloc failed: out of memory")
        }
        _ = chatstream_yajl_allow_multiple_values(handle)
        // Every string and key is checked as strict UTF-8 in `onString` (yajl's own check lets
        // overlong forms and encoded surrogates through), so yajl need not check them first.
        _ = chatstream_yajl_dont_validate_strings(handle)
        return handle
    }

    private func resetHandle() {
        yajl_free(handle)
        handle = JSONParser.makeHandle(context: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Parses one JSON value and calls `body` with its root element.
    ///
    /// - Parameters:
    ///   - bytes: the complete text of one value.
    ///   - streamOffset: where `bytes` start in the whole stream; error offsets count from there.
    ///   - body: reads what it needs; the element is valid only during the call.
    /// - Throws: ``JSONError`` when `bytes` are not exactly one JSON value within the limits,
    ///   and whatever `body` throws.
    @inlinable
    public func parse<R>(
        _ bytes: UnsafeRawBufferPointer, streamOffset: Int = 0, _ body: (JSONElement) throws -> R
    ) throws -> R {
        try fill(bytes, streamOffset: streamOffset)
        return try body(JSONElement(tape: tape, index: 0))
    }

    /// Parses one JSON value from an array of bytes; see ``parse(_:streamOffset:_:)``.
    public func parse<R>(_ bytes: [UInt8], streamOffset: Int = 0, _ body: (JSONElement) throws -> R) throws -> R {
        try bytes.withUnsafeBytes { try parse($0, streamOffset: streamOffset, body) }
    }

    /// Parses one JSON value from lent bytes (a view's `withData`, `withBytes` or `withPayload`);
    /// as the unsafe-buffer form does.
    public func parse<R>(_ bytes: RawSpan, streamOffset: Int = 0, _ body: (JSONElement) throws -> R) throws -> R {
        try bytes.withUnsafeBytes { try parse($0, streamOffset: streamOffset, body) }
    }

    /// Parses one JSON value into a tree.
    public func parseValue(_ bytes: UnsafeRawBufferPointer, streamOffset: Int = 0) throws -> JSONTree {
        try parse(bytes, streamOffset: streamOffset) { $0.jsonValue }
    }

    /// Parses one JSON value from an array of bytes into a tree.
    public func parseValue(_ bytes: [UInt8], streamOffset: Int = 0) throws -> JSONTree {
        try bytes.withUnsafeBytes { try parseValue($0, streamOffset: streamOffset) }
    }

    /// Parses one JSON value from a string into a tree.
    public func parseValue(_ text: String) throws -> JSONTree {
        var text = text
        return try text.withUTF8 { try parseValue(UnsafeRawBufferPointer($0)) }
    }

    // MARK: - Driving yajl

    @usableFromInline
    func fill(_ bytes: UnsafeRawBufferPointer, streamOffset: Int) throws {
        tape.reset()
        depth = 0
        completedValues = 0
        firstValueEnd = bytes.count
        self.streamOffset = streamOffset
        guard let base = bytes.baseAddress, bytes.count > 0, bytes.count <= configuration.maxValueBytes else {
            return try fillEmptyOrTooLarge(bytes)
        }
        let scan = JSONPayloadScan.scan(bytes)
        if scan.formFeedOrVerticalTab != nil || !scan.isASCII { try check(bytes, scan) }
        tape.input = base
        input = bytes
        let status = yajl_parse(handle, base, bytes.count)
        input = UnsafeRawBufferPointer(start: nil, count: 0)
        // The usual payload: one value that ends at the last byte.
        if status != yajl_status_ok || completedValues != 1 || depth != 0 || firstValueEnd != bytes.count {
            try finishUnusual(bytes, status)
        }
    }

    @inline(never)
    private func fillEmptyOrTooLarge(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count <= configuration.maxValueBytes else {
            throw JSONError(
                .valueTooLarge, byteOffset: streamOffset + configuration.maxValueBytes,
                message: "a value of \(bytes.count) bytes is over the limit of \(configuration.maxValueBytes)")
        }
        try finishUnusual(bytes, yajl_status_ok)
    }

    /// Throws for a form feed or vertical tab, or for ill-formed UTF-8 in a payload that is not
    /// all ASCII.
    @inline(never)
    private func check(_ bytes: UnsafeRawBufferPointer, _ scan: JSONPayloadScan.Result) throws {
        if let position = scan.formFeedOrVerticalTab {
            // yajl takes form feed and vertical tab for whitespace; JSON does not. Inside a string
            // they would be unescaped control characters, an error as well.
            throw JSONError(
                .syntax, byteOffset: streamOffset + position,
                message: "control character 0x\(String(bytes[position], radix: 16, uppercase: true)) outside a string")
        }
        if !scan.isASCII, let bad = UTF8Validation.firstInvalidIndex(bytes) {
            // JSON text is UTF-8 throughout; outside strings yajl would reject the byte anyway.
            throw JSONError(.invalidUTF8, byteOffset: streamOffset + bad, message: "invalid UTF-8")
        }
    }

    /// Everything after `yajl_parse` but the usual case: a lone number yajl has not ended yet,
    /// errors, no value or several, and bytes after the value.
    @inline(never)
    private func finishUnusual(_ bytes: UnsafeRawBufferPointer, _ firstStatus: yajl_status) throws {
        var status = firstStatus
        if status == yajl_status_ok && completedValues == 0 {
            // A lone number is only known to be over once yajl sees what follows. (Bytes after a
            // completed value, a number among them, are caught by the trailing-bytes check below.)
            let streamOffset = self.streamOffset
            self.streamOffset = streamOffset + bytes.count
            status = JSONParser.space.withUnsafeBufferPointer { yajl_parse(handle, $0.baseAddress, 1) }
            self.streamOffset = streamOffset
        }
        if status != yajl_status_ok {
            throw failed(status, bytes: bytes)
        }
        if completedValues != 1 || depth != 0 {
            resetHandle()
            if completedValues == 0 {
                throw JSONError(
                    .incomplete, byteOffset: streamOffset + bytes.count,
                    message: bytes.isEmpty ? "no JSON value" : "the value ends early")
            }
            throw JSONError(
                .multipleValues, byteOffset: streamOffset + bytes.count,
                message: "expected one JSON value, found \(completedValues)")
        }
        if let extra = JSONParser.firstNonWhitespace(bytes, from: firstValueEnd) {
            // A token yajl is still lexing after the value (`{} "ab`, `1 tr`): it holds those
            // bytes in its lexer, so the handle must not see the next payload.
            resetHandle()
            throw JSONError(
                .multipleValues, byteOffset: streamOffset + extra,
                message: "expected one JSON value, found more bytes after it")
        }
    }

    private static let space: [UInt8] = [0x20]

    @inline(never)
    private func failed(_ status: yajl_status, bytes: UnsafeRawBufferPointer) -> JSONError {
        defer { resetHandle() }
        switch status {
        case yajl_status_client_canceled:
            defer { failure = nil }
            return failure ?? JSONError(.syntax, byteOffset: streamOffset, message: "parse cancelled")
        case yajl_status_error:
            let consumed = min(Int(yajl_get_bytes_consumed(handle)), bytes.count)
            var message = "invalid JSON"
            if let text = yajl_get_error(handle, 0, nil, 0) {
                message = String(cString: text).trimmingTrailingNewlines()
                yajl_free_error(handle, text)
            }
            let kind: JSONError.Kind = message.contains("premature EOF") ? .incomplete : .syntax
            return JSONError(kind, byteOffset: streamOffset + consumed, message: message)
        default:
            return JSONError(.syntax, byteOffset: streamOffset, message: "unexpected yajl status \(status.rawValue)")
        }
    }

    private static func firstNonWhitespace(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            if byte != 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09 { return i }
            i += 1
        }
        return nil
    }

    // MARK: - Callbacks (called by yajl during `yajl_parse`)

    /// The offset in the stream just past the token yajl has reported.
    private var tokenEnd: Int { streamOffset + Int(yajl_get_bytes_consumed(handle)) }

    // The hot callbacks (strings, keys, containers) do their usual case without a call, so that
    // they keep to scratch registers and save none; everything else leaves through a call in
    // tail position to a static function of its own, which takes the parser as an ordinary
    // argument (a method would take it in the callee-saved self register, to be saved first).

    /// Ends a value: at the top level, counts it (the caller returns what this returns).
    @inline(__always)
    private func valueDone() -> Int32 {
        depth == 0 ? JSONParser.topLevelValueDone(self) : 1
    }

    @inline(never)
    private static func topLevelValueDone(_ parser: JSONParser) -> Int32 {
        parser.countTopLevelValue()
        return 1
    }

    /// Counts a completed top-level value and remembers where the first one ended.
    @inline(__always)
    private func countTopLevelValue() {
        completedValues &+= 1
        if completedValues == 1, input.baseAddress != nil {
            firstValueEnd = Int(yajl_get_bytes_consumed(handle))
        }
    }

    @inline(__always)
    fileprivate func onScalar(_ kind: JSONTapeToken.Kind) -> Int32 {
        tape.appendScalar(kind)
        return valueDone()
    }

    @inline(__always)
    fileprivate func onNumber(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        tape.appendBytes(.number, UnsafeRawBufferPointer(start: pointer, count: length))
        return valueDone()
    }

    @inline(__always)
    fileprivate func onString(_ kind: JSONTapeToken.Kind, _ pointer: UnsafePointer<UInt8>?, _ length: Int) -> Int32 {
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
    private static func onOtherString(
        _ parser: JSONParser, _ kind: JSONTapeToken.Kind, _ pointer: UnsafePointer<UInt8>?, _ length: Int
    ) -> Int32 {
        parser.otherString(kind, pointer, length)
    }

    @inline(__always)
    private func otherString(_ kind: JSONTapeToken.Kind, _ pointer: UnsafePointer<UInt8>?, _ length: Int) -> Int32 {
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
    private func appendOtherString(_ kind: JSONTapeToken.Kind, _ decoded: UnsafeRawBufferPointer) -> JSONError? {
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
    private func unescapedInInput(count: Int) -> Int? {
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
    private static func yajlDecodingIsOurs(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
    private func appendEscapedString(_ kind: JSONTapeToken.Kind, decoded: UnsafeRawBufferPointer) -> JSONError? {
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

    @inline(__always)
    fileprivate func onOpen(_ kind: JSONTapeToken.Kind) -> Int32 {
        let deeper = depth &+ 1
        if deeper <= configuration.maxDepth, tape.openContainerIfRoom(kind) {
            depth = deeper
            return 1
        }
        return JSONParser.onOpenOther(self, kind)
    }

    /// An open past the depth limit, or one for which the tape must grow.
    @inline(never)
    private static func onOpenOther(_ parser: JSONParser, _ kind: JSONTapeToken.Kind) -> Int32 {
        parser.openOther(kind)
    }

    @inline(__always)
    private func openOther(_ kind: JSONTapeToken.Kind) -> Int32 {
        depth &+= 1
        guard depth <= configuration.maxDepth else {
            return fail(
                JSONError(
                    .depthLimitExceeded, byteOffset: tokenEnd - 1,
                    message: "nesting deeper than \(configuration.maxDepth)"))
        }
        tape.openContainer(kind)
        return 1
    }

    @inline(__always)
    fileprivate func onClose() -> Int32 {
        tape.closeContainer()
        depth &-= 1
        return valueDone()
    }

    private func fail(_ error: JSONError) -> Int32 {
        failure = error
        return 0
    }

    // MARK: - The callbacks struct

    /// One callbacks struct for every handle, at a fixed address for the life of the process.
    private nonisolated(unsafe) static let callbacks: UnsafeMutablePointer<yajl_callbacks> = {
        let pointer = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
        pointer.initialize(
            to: yajl_callbacks(
                yajl_null: { context in withParser(context) { $0.onScalar(.null) } },
                yajl_boolean: { context, value in
                    withParser(context) { $0.onScalar(value != 0 ? .trueValue : .falseValue) }
                },
                yajl_integer: nil,
                yajl_double: nil,
                yajl_number: { context, text, length in withParser(context) { $0.onNumber(text, Int(length)) } },
                yajl_string: { context, text, length in withParser(context) { $0.onString(.string, text, Int(length)) }
                },
                yajl_start_map: { context in withParser(context) { $0.onOpen(.object) } },
                yajl_map_key: { context, text, length in withParser(context) { $0.onString(.key, text, Int(length)) } },
                yajl_end_map: { context in withParser(context) { $0.onClose() } },
                yajl_start_array: { context in withParser(context) { $0.onOpen(.array) } },
                yajl_end_array: { context in withParser(context) { $0.onClose() } }
            ))
        return pointer
    }()
}

/// Calls `body` with the parser behind yajl's context pointer, without retaining it: the
/// parser is alive for the whole `yajl_parse` call that runs the callback. The context is never
/// nil (every handle is made with its parser), so it is unwrapped without a check.
@inline(__always)
private func withParser(_ context: UnsafeMutableRawPointer?, _ body: (JSONParser) -> Int32) -> Int32 {
    Unmanaged<JSONParser>.fromOpaque(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var result = self
        while let last = result.last, last.isNewline || last == " " { result.removeLast() }
        return result
    }
}
