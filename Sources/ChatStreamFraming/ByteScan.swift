// ByteScan: finding line endings.
//
// The framers spend most of their time looking for the next LF (or CR). libc's `memchr` is
// vectorised; `LineEndFinder` uses it for both bytes while keeping the search linear.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds line ends in one input buffer with `memchr`, remembering where the next LF and the
/// next CR are, so that each search runs once per LF or CR found, not once per line: the whole
/// scan stays linear, and a stream without CRs costs one CR search per buffer.
struct LineEndFinder {
    private let base: UnsafeRawPointer
    private let count: Int
    /// The next LF at or after the last search start, or `count` when there is none.
    private var nextLF = -1
    /// The next CR at or after the last search start (when looking for CRs), or `count`.
    private var nextCR = -1

    init(_ base: UnsafeRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    /// Index of the first LF (or, when `orCR`, the first CR or LF) in `from..<to`, if any.
    @inline(__always)
    mutating func find(from: Int, to: Int, orCR: Bool) -> Int? {
        guard from < to else { return nil }
        if nextLF < from {
            nextLF = search(ByteScan.lf, from: from)
        }
        var end = nextLF
        if orCR {
            if nextCR < from {
                nextCR = search(ByteScan.cr, from: from)
            }
            end = min(end, nextCR)
        }
        return end < to ? end : nil
    }

    /// Makes the next search from before `position` find it again: `position` is an LF that a
    /// search found, with no CR before it since that search's start, and a later search (from
    /// just after it) moved on. The next CR stays as that later search left it: nothing lies
    /// between `position` and the later start that it could have skipped.
    @inline(__always)
    mutating func rewind(toLF position: Int) {
        nextLF = position
    }

    @inline(__always)
    private func search(_ byte: UInt8, from: Int) -> Int {
        // An empty line (the blank line that ends an SSE block) is found without a call.
        if base.load(fromByteOffset: from, as: UInt8.self) == byte { return from }
        guard let hit = memchr(base + from, Int32(byte), count &- from) else { return count }
        return base.distance(to: UnsafeRawPointer(hit))
    }
}

enum ByteScan {
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D

    /// Whether `bytes` holds only JSON whitespace (space, tab, CR, LF); true when empty.
    @inline(__always)
    static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte != 0x20 && byte != 0x09 && byte != cr && byte != lf {
            return false
        }
        return true
    }
}

/// Calls `body` with the bytes of `bytes`, without copying when the collection is contiguous
/// (`[UInt8]`, `ArraySlice<UInt8>`, `Data`), and through one copy otherwise. The async adapters
/// of every layer hand their chunks to the pure decoders through this.
@inlinable @inline(__always)
public func withContiguousBytes<Bytes: Collection<UInt8>, Result>(
    _ bytes: Bytes, _ body: (UnsafeRawBufferPointer) throws -> Result
) rethrows -> Result {
    if let result = try bytes.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    return try Array(bytes).withUnsafeBytes(body)
}
