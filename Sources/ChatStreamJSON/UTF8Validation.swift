// Strict UTF-8 validation (Unicode Table 3-7), with an ASCII fast path.
//
// yajl checks only the shape of multi-byte sequences: it lets overlong forms and encoded
// surrogates through. Every payload with a byte outside ASCII passes through here before yajl
// sees it.

@usableFromInline package enum UTF8Validation {
    /// The index of the first byte that starts an ill-formed sequence, or nil when all is well-formed.
    @inline(__always)
    @usableFromInline package static func firstInvalidIndex(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        var i = 0
        while i < count {
            // ASCII fast path: eight bytes at a time, then straight to the word's first byte of
            // 0x80 or more (the lowest lane in memory order). Fewer than eight bytes left: the
            // last eight, shifted past the bytes already seen.
            if i &+ 8 <= count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let high = word & 0x8080_8080_8080_8080
                if high == 0 {
                    i &+= 8
                    continue
                }
                i &+= high.trailingZeroBitCount >> 3
            } else if count >= 8 {
                let seen = i &- (count &- 8)
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
                let high = (word >> UInt64(seen &* 8)) & 0x8080_8080_8080_8080
                if high == 0 { break }
                i &+= high.trailingZeroBitCount >> 3
            }
            let lead = base.load(fromByteOffset: i, as: UInt8.self)
            if lead < 0x80 {
                i &+= 1
                continue
            }
            if let length = sequenceLength(base, i, count, lead) {
                i += length
            } else {
                return i
            }
        }
        return nil
    }

    /// The length of the well-formed sequence that `lead` starts at `i`, or nil when it is ill-formed
    /// or cut by the end. One bounds check for the whole sequence, then plain loads: each form is
    /// told by one range test on the lead, and fixes the range of the byte after it.
    @inline(__always)
    private static func sequenceLength(_ base: UnsafeRawPointer, _ i: Int, _ count: Int, _ lead: UInt8) -> Int? {
        let length: Int
        let low: UInt8
        let high: UInt8
        if lead &- 0xC2 <= 0xDF - 0xC2 {
            (length, low, high) = (2, 0x80, 0xBF)
        } else if lead & 0xF0 == 0xE0 {
            // E0: A0-BF (no overlongs); ED: 80-9F (no surrogates); others 80-BF.
            (length, low, high) = (3, lead == 0xE0 ? 0xA0 : 0x80, lead == 0xED ? 0x9F : 0xBF)
        } else if lead &- 0xF0 <= 0xF4 - 0xF0 {
            // F0: 90-BF (no overlongs); F4: 80-8F (nothing past U+10FFFF); others 80-BF.
            (length, low, high) = (4, lead == 0xF0 ? 0x90 : 0x80, lead == 0xF4 ? 0x8F : 0xBF)
        } else {
            return nil
        }
        guard i &+ length <= count else { return nil }
        @inline(__always) func byte(_ k: Int) -> UInt8 { base.load(fromByteOffset: i &+ k, as: UInt8.self) }
        let second = byte(1)
        guard second >= low, second <= high else { return nil }
        if length > 2, byte(2) & 0xC0 != 0x80 { return nil }
        if length > 3, byte(3) & 0xC0 != 0x80 { return nil }
        return length
    }
}
