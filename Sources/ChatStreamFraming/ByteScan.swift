// ByteScan: finding line endings a word at a time.
//
// The framers spend most of their time looking for the next LF (or CR). Instead of testing one
// byte per step, the loop loads eight bytes, XORs them with the wanted byte repeated, and uses the
// classic "has a zero byte" test, (x - 0x01..01) & ~x & 0x80..80, which is non-zero exactly when
// some byte of x is zero. Only the word that holds a match is then walked byte by byte.

enum ByteScan {
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080
    private static let lfs: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
    private static let crs: UInt64 = 0x0D0D_0D0D_0D0D_0D0D

    @inline(__always)
    private static func hasZeroByte(_ x: UInt64) -> Bool {
        (x &- ones) & ~x & highs != 0
    }

    /// Index of the first LF (or, when `orCR`, the first CR or LF) in `base[from..<to]`, if any.
    @inline(__always)
    static func firstLineEnd(_ base: UnsafeRawPointer, from: Int, to: Int, orCR: Bool) -> Int? {
        var index = from
        if orCR {
            while index &+ 8 <= to {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if hasZeroByte(word ^ lfs) || hasZeroByte(word ^ crs) { break }
                index &+= 8
            }
            while index < to {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                if byte == lf || byte == cr { return index }
                index &+= 1
            }
        } else {
            while index &+ 8 <= to {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if hasZeroByte(word ^ lfs) { break }
                index &+= 8
            }
            while index < to {
                if base.load(fromByteOffset: index, as: UInt8.self) == lf { return index }
                index &+= 1
            }
        }
        return nil
    }

    /// Whether `bytes` holds only JSON whitespace (space, tab, CR, LF); true when empty.
    @inline(__always)
    static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte != 0x20 && byte != 0x09 && byte != cr && byte != lf {
            return false
        }
        return true
    }
}

/// Calls `body` with the bytes of `bytes`, without copying when the collection is contiguous.
@inline(__always)
func withContiguousBytes<Bytes: Collection<UInt8>, Result>(
    _ bytes: Bytes, _ body: (UnsafeRawBufferPointer) throws -> Result
) rethrows -> Result {
    if let result = try bytes.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    return try Array(bytes).withUnsafeBytes(body)
}
