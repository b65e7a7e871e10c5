// ByteEquality: the package's one byte-equality helper (unit types, JSON keys, part IDs), here in
// the lowest layer so that framing and every layer above it share it.

/// Whether `count` bytes at `a` and `b` are equal: keys are short, so a few loads of at most
/// eight bytes each (overlapping at the end) instead of a byte loop or a libc call. Shared with
/// the other modules of the package (JSON keys, part-ID cache, unit data checks).
@inlinable @inline(__always)
package func memcmpBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    if count >= 8 {
        var i = 0
        while i &+ 8 < count {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i &+= 8
        }
        let last = count &- 8
        return a.loadUnaligned(fromByteOffset: last, as: UInt64.self)
            == b.loadUnaligned(fromByteOffset: last, as: UInt64.self)
    }
    if count >= 4 {
        let last = count &- 4
        return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
            && a.loadUnaligned(fromByteOffset: last, as: UInt32.self)
                == b.loadUnaligned(fromByteOffset: last, as: UInt32.self)
    }
    if count >= 2 {
        let last = count &- 2
        return a.loadUnaligned(as: UInt16.self) == b.loadUnaligned(as: UInt16.self)
            && a.loadUnaligned(fromByteOffset: last, as: UInt16.self)
                == b.loadUnaligned(fromByteOffset: last, as: UInt16.self)
    }
    return count == 0 || a.load(as: UInt8.self) == b.load(as: UInt8.self)
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes equal `other` (lengths first, then the words of both).
    @inlinable @inline(__always)
    package func sameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (count == 0 || memcmpBytes(baseAddress!, other.baseAddress!, count))
    }
}
