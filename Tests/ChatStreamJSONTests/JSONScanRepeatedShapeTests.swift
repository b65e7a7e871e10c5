// The repeated shape of a unit (JSONScan+RepeatedShape): once the bytes around a string are
// recorded, a unit with the same bytes around any string matches, its scan placed after the
// recorded bytes and its string read as the checked read reads it; a unit that differs before or
// after the string, a string with a `\u` escape, a control byte or bad UTF-8 (in the string or
// in the bytes after the shape), a string that runs into the recorded bytes, and a unit over
// the limits do not. A record whose content is not a quoted string remembers nothing. A shape
// with a hole for a number matches any plain integer there, and nothing else; one with a hole for
// a string's content matches any content there without a backslash, a control byte or bad UTF-8.

import Testing

@_spi(JSONScan) @testable import ChatStreamJSON

@Suite struct JSONScanRepeatedShapeTests {
    static let first = #"{"id":"c1","choices":[{"delta":{"content":"Hi"},"n":null}],"usage":null}"#
    /// Where the recorded suffix ends in `first`: after `]`.
    static let suffixEnd = Array(first.utf8).firstIndex(of: UInt8(ascii: "]"))! + 1

    /// A shape recorded from `first` around its `Hi`.
    static func recorded() -> JSONScan.RepeatedShape {
        var shape = JSONScan.RepeatedShape()
        Array(first.utf8).withUnsafeBytes { data in
            let at = Array(first.utf8).firstIndex(of: UInt8(ascii: "H"))!
            shape.record(data, content: UnsafeRawBufferPointer(rebasing: data[at..<(at + 2)]), suffixEnd: suffixEnd)
        }
        return shape
    }

    /// `shape`'s match of `unit`: the decoded string and the bytes left after the shape.
    static func match(
        _ unit: [UInt8], _ shape: JSONScan.RepeatedShape, _ limits: JSONConfiguration = JSONConfiguration()
    ) -> (text: String, rest: String)? {
        unit.withUnsafeBytes { data -> (String, String)? in
            guard let (scan, content) = shape.match(data, depth: 4, configuration: limits) else { return nil }
            let rest = String(decoding: data[scan.offset...], as: UTF8.self)
            return (content.withDecoded { String(decoding: $0, as: UTF8.self) }, rest)
        }
    }

    static func unit(_ string: String, after: String = #","usage":null}"#) -> [UInt8] {
        Array((#"{"id":"c1","choices":[{"delta":{"content":""# + string + #""},"n":null}]"# + after).utf8)
    }

    @Test func theSameBytesAroundAnotherStringMatch() {
        let shape = Self.recorded()
        #expect(!shape.isEmpty)
        #expect(Self.match(Array(Self.first.utf8), shape)?.text == "Hi")
        #expect(Self.match(Self.unit("there"), shape)?.text == "there")
        #expect(Self.match(Self.unit(""), shape)?.text == "")
        #expect(Self.match(Self.unit(#"a \"b\"\n"#), shape)?.text == "a \"b\"\n")
        #expect(Self.match(Self.unit("café 🚀"), shape)?.text == "café 🚀")
        // What follows the shape is left to the reader, checked for control bytes and UTF-8 only.
        let rest = Self.match(Self.unit("x", after: #","obfuscation":"abc"}"#), shape)
        #expect(rest?.rest == #","obfuscation":"abc"}"#)
    }

    @Test func otherBytesAroundTheStringDoNotMatch() {
        let shape = Self.recorded()
        let others = [
            #"{"id":"c2","choices":[{"delta":{"content":"x"},"n":null}],"usage":null}"#,  // before it
            #"{"id":"c1","choices":[{"delta":{"content":"x"},"n":0}],"usage":null}"#,  // after it
            #"{"id":"c1","choices":[{"delta":{"content":"x"}}],"usage":null}"#,  // shorter after it
            #"{"id":"c1","choices":[{"delta":{"content":"x"},"n":null}]"#,  // cut right after the shape: the reader's
            #"{"id":"c1""#,  // shorter than the shape
        ]
        #expect(Self.match(Array(others[0].utf8), shape) == nil)
        #expect(Self.match(Array(others[1].utf8), shape) == nil)
        #expect(Self.match(Array(others[2].utf8), shape) == nil)
        #expect(Self.match(Array(others[3].utf8), shape)?.rest == "")
        #expect(Self.match(Array(others[4].utf8), shape) == nil)
    }

    /// `source` with its byte at `index` replaced by another printable byte.
    static func changed(_ source: [UInt8], at index: Int) -> [UInt8] {
        var bytes = source
        bytes[index] = bytes[index] == UInt8(ascii: "q") ? UInt8(ascii: "r") : UInt8(ascii: "q")
        return bytes
    }

    /// Any one byte changed in the remembered bytes, wherever it is, refuses the match: the long
    /// runs (from 24 bytes, compared by libc's memcmp) and the short ones (eight-byte words),
    /// before the string and after it, on either side of a hole.
    @Test func anyOneChangedRememberedByteDoesNotMatch() {
        let plain = Self.unit("there")
        let at = plain.firstRange(of: Array("there".utf8))!.lowerBound
        let shape = Self.recorded()
        #expect(Self.match(plain, shape)?.text == "there")
        for index in Array(0..<at) + Array((at + 6)...plain.firstIndex(of: UInt8(ascii: "]"))!) {
            #expect(Self.match(Self.changed(plain, at: index), shape) == nil, "byte \(index)")
        }
        // With a hole: 30 bytes before it, 16 after it up to the string (the shape ends at its quote).
        let counted = Self.counted("12345", "there")
        let text = counted.firstRange(of: Array("there".utf8))!.lowerBound
        let digits = counted.firstRange(of: Array("12345".utf8))!.lowerBound
        let holed = Self.recordedWithHole()
        #expect(Self.match(counted, holed)?.text == "there")
        for index in Array(0..<digits) + Array((digits + 5)..<text) {
            #expect(Self.match(Self.changed(counted, at: index), holed) == nil, "byte \(index)")
        }
    }

    @Test func stringsAndRestsTheCheckedReadRefusesDoNotMatch() {
        let shape = Self.recorded()
        #expect(Self.match(Self.unit(#"caf\u00e9"#), shape) == nil)  // `\u`: yajl's
        #expect(Self.match(Self.unit(#"bad \x"#), shape) == nil)
        #expect(Self.match(Self.unit("tab\there"), shape) == nil)  // a raw control byte
        #expect(Self.match(Self.unit("x", after: ",\"usage\":\n null}"), shape) == nil)  // one after the shape
        var badUTF8 = Self.unit("ab")
        badUTF8[badUTF8.firstIndex(of: UInt8(ascii: "a"))!] = 0xC3
        #expect(Self.match(badUTF8, shape) == nil)
        // A string ending in a backslash runs into the recorded `"`: it does not end where the shape does.
        #expect(Self.match(Self.unit(#"x\"#), shape) == nil)
    }

    @Test func aUnitOverTheLimitsDoesNotMatch() {
        var limits = JSONConfiguration()
        limits.maxValueBytes = Self.first.utf8.count + 4
        #expect(Self.match(Self.unit("there"), Self.recorded(), limits) != nil)
        #expect(Self.match(Self.unit("there, and more"), Self.recorded(), limits) == nil)
        limits = JSONConfiguration()
        limits.reading = .tapeOnly
        #expect(Self.match(Self.unit("there"), Self.recorded(), limits) == nil)
    }

    @Test func aRecordOfBytesThatAreNotAQuotedStringRemembersNothing() {
        var shape = Self.recorded()
        Array(Self.first.utf8).withUnsafeBytes { data in
            // `id":"c` is not between quotes.
            shape.record(data, content: UnsafeRawBufferPointer(rebasing: data[2..<7]), suffixEnd: Self.suffixEnd)
        }
        #expect(shape.isEmpty)
        #expect(Self.match(Array(Self.first.utf8), shape) == nil)
        shape = Self.recorded()
        shape.clear()
        #expect(shape.isEmpty && Self.match(Array(Self.first.utf8), shape) == nil)
    }

    static let counted = #"{"type":"d","sequence_number":9,"i":0,"delta":"Hi","x":[]}"#

    /// A shape recorded from `counted` around its `Hi`, with a hole at its `9`.
    static func recordedWithHole() -> JSONScan.RepeatedShape {
        var shape = JSONScan.RepeatedShape()
        let bytes = Array(counted.utf8)
        bytes.withUnsafeBytes { data in
            let number = bytes.firstIndex(of: UInt8(ascii: "9"))!
            let at = bytes.firstIndex(of: UInt8(ascii: "H"))!
            shape.record(
                data, content: UnsafeRawBufferPointer(rebasing: data[at..<(at + 2)]), suffixEnd: at + 3,
                number: number..<(number + 1))
        }
        return shape
    }

    static func counted(_ number: String, _ text: String = "x") -> [UInt8] {
        Array(#"{"type":"d","sequence_number":\#(number),"i":0,"delta":"\#(text)","x":[]}"#.utf8)
    }

    @Test func aHoleTakesAnyPlainInteger() {
        let shape = Self.recordedWithHole()
        #expect(!shape.isEmpty)
        for number in ["9", "0", "10", "12345", "999999999999999999"] {
            let read = Self.match(Self.counted(number, "there"), shape)
            #expect(read?.text == "there", "\(number)")
            #expect(read?.rest == #","x":[]}"#, "\(number)")
        }
        for number in ["", "-1", "01", "1.5", "1e3", "\"9\"", "null", "1234567890123456789"] {
            #expect(Self.match(Self.counted(number), shape) == nil, "\(number)")
        }
        // The bytes on either side of the hole are still compared.
        #expect(Self.match(Array(#"{"type":"e","sequence_number":9,"i":0,"delta":"x","x":[]}"#.utf8), shape) == nil)
        #expect(Self.match(Array(#"{"type":"d","sequence_number":9,"i":1,"delta":"x","x":[]}"#.utf8), shape) == nil)
    }

    @Test func aHoleThatIsNotPlainDigitsBeforeTheStringIsNotRecorded() {
        let bytes = Array(Self.counted.utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "H"))!
        for number in [0..<1, (at + 1)..<(at + 2), 5..<7] {  // `{`, inside the string, `pe`
            var shape = JSONScan.RepeatedShape()
            bytes.withUnsafeBytes { data in
                shape.record(
                    data, content: UnsafeRawBufferPointer(rebasing: data[at..<(at + 2)]), suffixEnd: at + 3,
                    number: number)
            }
            #expect(shape.isEmpty, "\(number)")
        }
    }

    static let timed = #"{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"content":"Hi"},"done":false}"#

    /// A shape recorded from `timed` around its `Hi` to its end, with a hole at its `created_at`.
    static func recordedWithStringHole(_ source: String = timed) -> JSONScan.RepeatedShape {
        var shape = JSONScan.RepeatedShape()
        let bytes = Array(source.utf8)
        bytes.withUnsafeBytes { data in
            let time = bytes.firstIndex(of: UInt8(ascii: "2"))!
            let timeEnd = bytes[time...].firstIndex(of: UInt8(ascii: "\""))!
            let at = bytes.firstIndex(of: UInt8(ascii: "H"))!
            shape.record(
                data, content: UnsafeRawBufferPointer(rebasing: data[at..<(at + 2)]), suffixEnd: bytes.count,
                string: time..<timeEnd)
        }
        return shape
    }

    static func timed(_ time: String, _ text: String = "x") -> [UInt8] {
        Array(#"{"model":"m","created_at":"\#(time)","message":{"content":"\#(text)"},"done":false}"#.utf8)
    }

    @Test func aStringHoleTakesAnyContentWithoutABackslash() {
        let shape = Self.recordedWithStringHole()
        #expect(!shape.isEmpty)
        for time in ["2025-01-01T00:00:00Z", "2025-06-30T12:34:56.123456789Z", "", "é ü", "x"] {
            let read = Self.match(Self.timed(time, "there"), shape)
            #expect(read?.text == "there", "\(time)")
            #expect(read?.rest == "", "\(time)")
        }
        // A backslash, a control byte or a byte that is not UTF-8 in the hole: not a match (the
        // read it stands for would check or decode them).
        for time in [#"a\"b"#, #"a\nb"#, "a\tb", "a\u{1}b"] {
            #expect(Self.match(Self.timed(time), shape) == nil, "\(time)")
        }
        var invalid = Self.timed("ab")
        invalid[invalid.firstIndex(of: UInt8(ascii: "a"))!] = 0xC0
        #expect(Self.match(invalid, shape) == nil)
        // The bytes on either side of the hole are still compared.
        #expect(
            Self.match(Array(#"{"model":"n","created_at":"t","message":{"content":"x"},"done":false}"#.utf8), shape)
                == nil)
        #expect(
            Self.match(Array(#"{"model":"m","created_at":"t","message":{"content":"x"},"done":true}"#.utf8), shape)
                == nil)
        // Bytes after the shape are left to the caller.
        let longer = Self.match(
            Array(#"{"model":"m","created_at":"t","message":{"content":"x"},"done":false} "#.utf8), shape)
        #expect(longer?.rest == " ")
    }

    @Test func aStringHoleThatIsNotAQuotedContentWithoutABackslashIsNotRecorded() {
        let bytes = Array(Self.timed.utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "H"))!
        let time = bytes.firstIndex(of: UInt8(ascii: "2"))!
        // `{"m`, the time without its last byte, the text itself, and a time with a backslash.
        for range in [0..<3, time..<(time + 19), at..<(at + 2)] {
            var shape = JSONScan.RepeatedShape()
            bytes.withUnsafeBytes { data in
                shape.record(
                    data, content: UnsafeRawBufferPointer(rebasing: data[at..<(at + 2)]), suffixEnd: bytes.count,
                    string: range)
            }
            #expect(shape.isEmpty, "\(range)")
        }
        #expect(
            Self.recordedWithStringHole(#"{"model":"m","created_at":"2\"5","message":{"content":"Hi"},"done":false}"#)
                .isEmpty)
    }
}
