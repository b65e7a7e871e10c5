// WordLanes: eight bytes at a time, for the scans that look for a few byte values.
//
// The classic "has a zero byte" trick: `(x - 0x01...01) & ~x & 0x80...80` sets the high bit of
// each zero byte of `x`. A byte above the lowest zero byte may be flagged wrongly (a borrow runs
// into it), so a caller uses only the lowest flag, or only whether any flag is set; both are
// always right. Testing for a value `b` is testing `x ^ (b * 0x01...01)` for zero bytes.
//
// In the byte kit so that the JSON value scanner and the JSON layer's UTF-8 check share it;
// transparent, with its constants computed, so a caller in another module always inlines it
// (`@inlinable @inline(__always)` was left as a call in one of the JSON layer's loops).

@usableFromInline package enum WordLanes {
    @_transparent @usableFromInline package static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @_transparent @usableFromInline package static var highBits: UInt64 { 0x8080_8080_8080_8080 }

    /// The high bit of each zero byte of `word` (exact up to the lowest one).
    @_transparent
    @usableFromInline package static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highBits
    }

    /// The high bit of each byte of `word` equal to `byte` (exact up to the lowest one).
    @_transparent
    @usableFromInline package static func bytes(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
        zeroBytes(word ^ (ones &* UInt64(byte)))
    }

    /// The high bit of each byte of `word` below `bound` (at most 0x80; exact up to the lowest
    /// one): subtracting `bound` from every lane borrows out of a lane only where its byte is
    /// smaller, and a byte of 0x80 or more is masked by its own high bit.
    @_transparent
    @usableFromInline package static func bytes(_ word: UInt64, below bound: UInt8) -> UInt64 {
        (word &- ones &* UInt64(bound)) & ~word & highBits
    }
}
