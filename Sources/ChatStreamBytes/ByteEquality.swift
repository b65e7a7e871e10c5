// ByteEquality: the package's one byte-equality helper (unit types, SSE field names, JSON keys,
// part IDs, format detection), in the byte kit that framing, JSON and every layer above share.
//
// Transparent rather than `@inlinable`: a `package` `@inlinable` function is left as a call in
// another module, and these run once per key or field name in every layer.

/// Whether `count` bytes at `a` and `b` are equal: keys are short, so a few loads of at most
/// eight bytes each (overlapping at the end) instead of a byte loop or a libc call. Shared with
/// the other modules of the package (JSON keys, part-ID cache, unit data checks).
@_transparent @usableFromInline
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
    @_transparent @usableFromInline
    package func sameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (count == 0 || memcmpBytes(baseAddress!, other.baseAddress!, count))
    }

    /// Whether these bytes are exactly `text`'s UTF-8.
    @_transparent @usableFromInline
    package func sameBytes(as text: StaticString) -> Bool {
        sameBytes(as: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether these bytes begin with `text`'s UTF-8.
    @_transparent @usableFromInline
    package func hasPrefix(_ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        return count >= length && (length == 0 || memcmpBytes(baseAddress!, text.utf8Start, length))
    }
}

extension String {
    /// Whether the two strings have the same UTF-8 bytes (JSON keys compare by bytes, not by
    /// Unicode canonical equivalence as `==` on `String` does).
    @inlinable
    package func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var lhs = self
        var rhs = other
        return lhs.withUTF8 { a in
            rhs.withUTF8 { b in UnsafeRawBufferPointer(a).sameBytes(as: UnsafeRawBufferPointer(b)) }
        }
    }
}
