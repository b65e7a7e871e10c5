// JSONPayloadScan: one pass over a payload before yajl sees it, eight bytes a word, two words a step.
//
// It answers two questions. Is every byte ASCII? Then the payload needs no UTF-8 check (otherwise
// the parser checks all of it before parsing). Is there a form feed or vertical tab? yajl takes
// them for whitespace, which JSON does not (inside a string they would be raw control
// characters, an error as well). Compact JSON, the usual payload, has no control character at
// all, and the pass proves that in the same four operations per word; only a payload with some
// (pretty-printed JSON) is searched for the two bytes. The same pass tells a read by position
// (JSONScan) whether a unit has any control byte at all.

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

@usableFromInline package enum JSONPayloadScan {
    /// The result: whether all bytes are ASCII, and where the first form feed or vertical tab is.
    struct Result {
        var isASCII: Bool
        var formFeedOrVerticalTab: Int?
    }

    @inline(__always)
    static func scan(_ bytes: UnsafeRawBufferPointer) -> Result {
        guard let base = bytes.baseAddress else { return Result(isASCII: true, formFeedOrVerticalTab: nil) }
        let (high, control) = lanes(base, bytes.count)
        let isASCII = high & 0x8080_8080_8080_8080 == 0
        guard control & 0x8080_8080_8080_8080 != 0 else { return Result(isASCII: isASCII, formFeedOrVerticalTab: nil) }
        return Result(isASCII: isASCII, formFeedOrVerticalTab: firstFormFeedOrVerticalTab(base, bytes.count))
    }

    /// Whether `count` bytes at `a` and `b` are equal, by libc's `memcmp` (for runs of dozens of
    /// bytes or more, where its vector steps cost less than its call). Here rather than beside
    /// `memcmpBytes` in ChatStreamBytes: in this module the optimizer inlines it into
    /// `RepeatedShape.match`, while from there it stayed a call of its own and the match's code
    /// grew (callgrind, net: Ollama +2.7% against the word loop, where this file's copy saves 4.4%).
    @usableFromInline package static func sameLongBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int)
        -> Bool
    {
        memcmp(a, b, count) == 0
    }

    /// Whether `bytes` hold no byte below 0x20 (no whitespace but the space, no control
    /// character) and are well-formed UTF-8: the check a read by position makes of a whole unit
    /// before it reads any string of it (JSONScan).
    @usableFromInline package static func isUTF8WithoutControlBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let (high, control) = lanes(base, bytes.count)
        guard control & 0x8080_8080_8080_8080 == 0 else { return false }
        return high & 0x8080_8080_8080_8080 == 0 || UTF8Validation.firstInvalidIndex(bytes) == nil
    }

    /// The high bits of the lanes, ORed: of the bytes themselves (a byte of 0x80 or more), and
    /// of the bytes minus 0x20 where the byte was below 0x80 (a byte below 0x20).
    @inline(__always)
    private static func lanes(_ base: UnsafeRawPointer, _ count: Int) -> (high: UInt64, control: UInt64) {
        var high: UInt64 = 0
        var control: UInt64 = 0
        // Per byte lane: the word's own high bit marks a byte of 0x80 or more; subtracting 0x20
        // sets the high bit of a lane whose byte is below 0x20 (the borrow can spill into the
        // next lane only from such a lane), masked where the byte itself was 0x80 or more.
        @inline(__always) func take(_ word: UInt64) {
            high |= word
            control |= (word &- 0x2020_2020_2020_2020) & ~word
        }
        if count >= 16 {
            // Sixteen bytes a step: the same operations on two words at once (one vector), the
            // last step on the last sixteen bytes (overlapping bytes already seen; harmless).
            var high2 = SIMD2<UInt64>()
            var control2 = SIMD2<UInt64>()
            @inline(__always) func take2(_ words: SIMD2<UInt64>) {
                high2 |= words
                control2 |= (words &- SIMD2(repeating: 0x2020_2020_2020_2020)) & ~words
            }
            var i = 0
            while i &+ 16 < count {
                take2(base.loadUnaligned(fromByteOffset: i, as: SIMD2<UInt64>.self))
                i &+= 16
            }
            take2(base.loadUnaligned(fromByteOffset: count &- 16, as: SIMD2<UInt64>.self))
            high = high2[0] | high2[1]
            control = control2[0] | control2[1]
        } else if count >= 8 {
            take(base.loadUnaligned(as: UInt64.self))
            take(base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))  // overlaps; harmless
        } else {
            var word: UInt64 = 0x2020_2020_2020_2020  // spaces: neither high nor control
            for k in 0..<count { word = word << 8 | UInt64(base.load(fromByteOffset: k, as: UInt8.self)) }
            take(word)
        }
        return (high, control)
    }

    @inline(never)
    private static func firstFormFeedOrVerticalTab(_ base: UnsafeRawPointer, _ count: Int) -> Int? {
        // libc's vectorised memchr, once for each byte (the second search stops at the first hit).
        var first = count
        if let hit = memchr(base, 0x0C, count) { first = base.distance(to: UnsafeRawPointer(hit)) }
        if let hit = memchr(base, 0x0B, first) { first = base.distance(to: UnsafeRawPointer(hit)) }
        return first < count ? first : nil
    }
}
