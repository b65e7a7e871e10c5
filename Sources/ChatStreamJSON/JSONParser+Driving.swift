// JSONParser+Driving: one payload through yajl, with the checks before and the endings after.
//
// What: `fill` resets the tape, checks the payload and hands it to `yajl_parse` in one call;
// anything but one value ending at the last byte goes to `finishUnusual`.
// Why: yajl accepts form feed and vertical tab as whitespace and lets some ill-formed UTF-8
// through, so the whole payload is checked first (a scan finds most payloads all ASCII, and then
// that is all). After any error the handle is freed and a new one made, since yajl's state is
// then dead. The usual case stays inline in `fill`; everything rare is in functions of its own,
// so the hot code stays small.
//
// For example, `12` alone: yajl cannot know the number is over until it sees the next byte, so
// `finishUnusual` feeds it one space and the value is 12. `{} {}` completes two values and
// throws `.multipleValues` at byte 5; `{} "ab` leaves a string under way in yajl's lexer and
// throws `.multipleValues` at byte 3, where the extra bytes begin.

internal import CYajl

extension JSONParser {
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
    func fillEmptyOrTooLarge(_ bytes: UnsafeRawBufferPointer) throws {
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
    func check(_ bytes: UnsafeRawBufferPointer, _ scan: JSONPayloadScan.Result) throws {
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
    func finishUnusual(_ bytes: UnsafeRawBufferPointer, _ firstStatus: yajl_status) throws {
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

    static let space: [UInt8] = [0x20]

    @inline(never)
    func failed(_ status: yajl_status, bytes: UnsafeRawBufferPointer) -> JSONError {
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

    static func firstNonWhitespace(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            if byte != 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09 { return i }
            i += 1
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var result = self
        while let last = result.last, last.isNewline || last == " " { result.removeLast() }
        return result
    }
}
