// Strict UTF-8 validation (Unicode Table 3-7), with an ASCII fast path.
//
// yajl checks only the shape of multi-byte sequences: it lets overlong forms and encoded
// surrogates through. Every payload with a byte outside ASCII passes through here before yajl
// sees it.

enum UTF8Validation {
    /// The index of the first byte that starts an ill-formed sequence, or nil when all is well-formed.
    @inline(__always)
    static func firstInvalidIndex(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        @inline(__always) func byte(_ k: Int) -> UInt8 { base.load(fromByteOffset: k, as: UInt8.self) }
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
            let lead = byte(i)
            if lead < 0x80 {
                i &+= 1
                continue
            }
            // Three bytes after the lead are in bounds (all but the payload's last few bytes):
            // each form is told by one range test on the lead and checked with plain loads.
            if i &+ 3 < count {
                let b1 = byte(i &+ 1)
                if lead &- 0xC2 <= 0xDF - 0xC2 {
                    guard b1 & 0xC0 == 0x80 else { return i }
                    i &+= 2
                    continue
                }
                if lead & 0xF0 == 0xE0 {
                    // E0: A0-BF (no overlongs); ED: 80-9F (no surrogates); others 80-BF.
                    let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                    let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
                    guard b1 >= low, b1 <= high, byte(i &+ 2) & 0xC0 == 0x80 else { return i }
                    i &+= 3
                    continue
                }
                if lead &- 0xF0 <= 0xF4 - 0xF0 {
                    // F0: 90-BF (no overlongs); F4: 80-8F (nothing past U+10FFFF); others 80-BF.
                    let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
                    let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
                    guard b1 >= low, b1 <= high, byte(i &+ 2) & 0xC0 == 0x80, byte(i &+ 3) & 0xC0 == 0x80 else {
                        return i
                    }
                    i &+= 4
                    continue
                }
                return i
            }
            // Near the end: every byte checked against the bounds.
            if let length = sequenceLength(base, i, count, lead) {
                i += length
            } else {
                return i
            }
        }
        return nil
    }

    @inline(__always)
    private static func sequenceLength(_ base: UnsafeRawPointer, _ i: Int, _ count: Int, _ lead: UInt8) -> Int? {
        @inline(__always) func byte(_ k: Int) -> UInt8? {
            i + k < count ? base.load(fromByteOffset: i + k, as: UInt8.self) : nil
        }
        @inline(__always) func isContinuation(_ b: UInt8?) -> Bool { b.map { $0 & 0xC0 == 0x80 } ?? false }
        switch lead {
        case 0xC2...0xDF:
            return isContinuation(byte(1)) ? 2 : nil
        case 0xE0...0xEF:
            guard let b1 = byte(1) else { return nil }
            let (low, high): (UInt8, UInt8) = lead == 0xE0 ? (0xA0, 0xBF) : lead == 0xED ? (0x80, 0x9F) : (0x80, 0xBF)
            return b1 >= low && b1 <= high && isContinuation(byte(2)) ? 3 : nil
        case 0xF0...0xF4:
            guard let b1 = byte(1) else { return nil }
            let (low, high): (UInt8, UInt8) = lead == 0xF0 ? (0x90, 0xBF) : lead == 0xF4 ? (0x80, 0x8F) : (0x80, 0xBF)
            return b1 >= low && b1 <= high && isContinuation(byte(2)) && isContinuation(byte(3)) ? 4 : nil
        default:
            return nil
        }
    }
}
