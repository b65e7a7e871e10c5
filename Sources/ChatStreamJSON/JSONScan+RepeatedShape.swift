// JSONScan+RepeatedShape: a unit that repeats the last one's bytes around its one string. A
// provider sends the same envelope with every token: an OpenAI chat chunk is
// `{"id":"chatcmpl-…","object":"chat.completion.chunk","created":…,"model":…,"choices":[{"index":0,
// "delta":{"content":"` + the text + `"},"logprobs":null,"finish_reason":null}]` + the rest, and a
// Gemini element repeats everything but its text. A dialect that has read a unit member by
// member remembers the bytes before its string (through the opening quote) and after it (from
// the closing quote up to where its read may go on); the next unit that holds the same bytes
// there, around any string, has the same structure with the same values, since a JSON string
// can be swapped for another without changing what surrounds it. So only the new string and
// the bytes after the remembered ones are checked and read: the ~150 bytes of an OpenAI chunk's
// envelope cost one comparison instead of a member-by-member read (the callgrind profiles of the
// bench's OpenAI chat and Gemini streams, issue 32).
//
// One member before the string may hold a counter instead (OpenAI Responses' `sequence_number`,
// one more on every event): the shape then has a hole there that any run of up to 18 digits
// fills, as the read it replaces would have skipped any number there. Or a string that changes
// (Ollama's `created_at`, a new time on every line): the hole is then that string's content, which
// any content without a backslash fills (checked as the read would check it).
//
// What a match proves is only what the bytes prove: a dialect whose read by position also
// compares its own state (Gemini's last usage) clears the shape when that state changes.

import ChatStreamBytes

extension JSONScan {
    /// The bytes around one string of the last unit a dialect read member by member (see the
    /// file comment): before the string's content, and from its closing quote up to where the
    /// dialect's read goes on.
    public struct RepeatedShape {
        /// The bytes before the string's content, then the bytes after its closing quote.
        @usableFromInline var bytes: [UInt8] = []
        /// How many of ``bytes`` come before the content; 0 when nothing is remembered.
        @usableFromInline var prefixCount = 0
        /// Where in ``bytes`` a number's digits (or a string's content) were left out (the hole), or -1.
        @usableFromInline var holeAt = -1
        /// Whether the hole is a string's content rather than a number's digits.
        @usableFromInline var holeIsString = false

        /// Nothing remembered.
        public init() {}

        /// Whether nothing is remembered (``match(_:depth:configuration:)`` returns nil).
        public var isEmpty: Bool { prefixCount == 0 }

        /// Forgets the shape.
        public mutating func clear() {
            bytes.removeAll(keepingCapacity: true)
            prefixCount = 0
            holeAt = -1
            holeIsString = false
        }

        /// Remembers `data`'s bytes before `content` (a string's content in `data`, between its
        /// quotes) and those from after its closing quote up to offset `suffixEnd` of `data`:
        /// bytes a read has accepted, whose structure does not depend on the string. With
        /// `number`, the range of a member's value before the string that the read skipped,
        /// those bytes are a hole any digits fill; with `string`, the range of a string's content
        /// (between its quotes) before it, a hole any content without a backslash fills. Forgets
        /// instead when `content` is not a quoted string's content in `data`, `number` is not 1
        /// to 18 digits before it, or `string` is not a quoted content without a backslash before it.
        public mutating func record(
            _ data: UnsafeRawBufferPointer, content: UnsafeRawBufferPointer, suffixEnd: Int, number: Range<Int>? = nil,
            string: Range<Int>? = nil
        ) {
            clear()
            guard let base = data.baseAddress, let start = content.baseAddress else { return }
            let first = start - base
            let afterQuote = first + content.count + 1
            guard first > 0, afterQuote <= suffixEnd, suffixEnd <= data.count,
                data[first - 1] == UInt8(ascii: "\""), data[afterQuote - 1] == UInt8(ascii: "\"")
            else { return }
            if let number {
                guard number.lowerBound > 0, number.upperBound < first, number.count <= 18,
                    Self.digits(UnsafeRawPointer(base), from: number.lowerBound, to: number.upperBound)
                        == number.upperBound
                else { return }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[0..<number.lowerBound]))
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[number.upperBound..<first]))
                holeAt = number.lowerBound
            } else if let string {
                guard string.lowerBound > 0, string.upperBound < first &- 1,
                    data[string.lowerBound &- 1] == UInt8(ascii: "\""),
                    JSONValueScanner.firstQuoteOrBackslash(base, from: string.lowerBound, to: first)
                        == string.upperBound,
                    data[string.upperBound] == UInt8(ascii: "\"")
                else { return }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[0..<string.lowerBound]))
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[string.upperBound..<first]))
                holeAt = string.lowerBound
                holeIsString = true
            } else {
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[0..<first]))
            }
            prefixCount = bytes.count
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[afterQuote..<suffixEnd]))
        }

        /// Whether `count` bytes at `a` and `b` are equal: from 24 bytes (an envelope's remembered
        /// bytes run to 50-150) by libc's vectorised `memcmp`, 32 bytes a step for the cost of a
        /// call; shorter runs by ``memcmpBytes(_:_:_:)``'s eight-byte words. (The words alone cost
        /// about six instructions each: net of each stream's generation, the callgrind profiles of
        /// the bench's OpenAI Responses, OpenAI chat, Ollama and Gemini streams fell by 6.7%, 6.2%,
        /// 4.4% and 3.4%; the threshold at 16 changed nothing more, at 48 it kept less.)
        @inlinable @inline(__always)
        static func same(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
            count >= 24 ? JSONPayloadScan.sameLongBytes(a, b, count) : memcmpBytes(a, b, count)
        }

        /// The end of the run of at most 18 digits at `from` (`from` when there is none, or when
        /// it has a leading zero and more digits: a read by position takes only plain integers).
        @inlinable
        static func digits(_ base: UnsafeRawPointer, from: Int, to end: Int) -> Int {
            var i = from
            while i < end, i &- from < 18, base.load(fromByteOffset: i, as: UInt8.self) &- UInt8(ascii: "0") < 10 {
                i &+= 1
            }
            if i &- from > 1, base.load(fromByteOffset: from, as: UInt8.self) == UInt8(ascii: "0") { return from }
            return i
        }

        /// A scan of `data` (as ``JSONScan/init(members:depth:configuration:)`` would make it)
        /// placed after the remembered bytes that follow the string, and the string's content,
        /// when `data` begins with the remembered bytes before the string, then holds a string
        /// (no `\u` escape) and then the remembered bytes after it; the string and every byte
        /// after those are checked as that initializer checks a unit. Nil otherwise (the dialect
        /// then reads the unit in full).
        @inlinable
        public func match(
            _ data: UnsafeRawBufferPointer, depth: Int, configuration: JSONConfiguration
        ) -> (scan: JSONScan, content: StringContent)? {
            let prefix = prefixCount
            guard prefix > 0, data.count > bytes.count, let start = data.baseAddress else { return nil }
            return bytes.withUnsafeBytes { shape -> (scan: JSONScan, content: StringContent)? in
                guard let remembered = shape.baseAddress,
                    var scan = JSONScan(data, depth: depth, configuration: configuration)
                else { return nil }
                if holeAt < 0 {
                    guard Self.same(start, remembered, prefix) else { return nil }
                    scan.position = prefix
                } else {
                    // The bytes before the hole, its digits (or string content), the bytes after
                    // it, which begin with the string's closing quote.
                    let afterHole: Int
                    if holeIsString {
                        afterHole = JSONValueScanner.firstQuoteOrBackslash(start, from: holeAt, to: scan.end)
                        guard afterHole < scan.end, start.load(fromByteOffset: afterHole, as: UInt8.self) == 0x22
                        else { return nil }
                    } else {
                        afterHole = Self.digits(start, from: holeAt, to: scan.end)
                        guard afterHole > holeAt else { return nil }
                    }
                    let rest = prefix &- holeAt
                    guard scan.end &- afterHole > rest &+ (shape.count &- prefix),
                        Self.same(start, remembered, holeAt),
                        Self.same(start + afterHole, remembered + holeAt, rest),
                        !holeIsString
                            || JSONPayloadScan.isUTF8WithoutControlBytes(
                                UnsafeRawBufferPointer(start: start + holeAt, count: afterHole &- holeAt))
                    else { return nil }
                    scan.position = afterHole &+ rest
                }
                // The content's quote and backslash search reads bytes only; the content itself
                // is checked next, the remembered bytes were checked when they were read.
                guard let content = scan.checkedStringContent(),
                    JSONPayloadScan.isUTF8WithoutControlBytes(content.raw)
                else { return nil }
                let suffix = shape.count &- prefix
                guard scan.end &- scan.position >= suffix,
                    Self.same(start + scan.position, remembered + prefix, suffix)
                else { return nil }
                scan.position &+= suffix
                let rest = UnsafeRawBufferPointer(start: start + scan.position, count: scan.end &- scan.position)
                guard JSONPayloadScan.isUTF8WithoutControlBytes(rest) else { return nil }
                return (scan, content)
            }
        }
    }
}
