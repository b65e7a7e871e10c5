// JSONFramerCarry: what the JSON framers (array elements and value sequences in ChatStream, and
// `JSONStreamParser` here) share: a value scanner and a carry buffer, delivering one complete
// value at a time.
//
// The framers follow the architecture's rule: frame with a byte scan (``JSONValueScanner``),
// then give each complete value's bytes to the parser.
//
// Copies: a value that lies wholly inside one fed chunk is passed as a slice of that chunk. A
// value cut by a chunk boundary is gathered in a carry buffer, each of its bytes copied there
// exactly once; the buffer is emptied (keeping its capacity, up to 1 MiB) after the value is
// delivered, so it never grows beyond the largest value and is never shifted.

/// The carry buffer and scanner shared by both framers: delivers one value at a time.
package struct JSONFramerCarry: Sendable {
    package var scanner: JSONValueScanner
    /// Bytes of a value that began in an earlier chunk.
    package private(set) var carry: [UInt8] = []
    /// Whether the value under way began in an earlier chunk (its first bytes are in `carry`).
    private var carrying = false
    /// The stream offset of the value under way's first byte.
    package private(set) var valueOffset = 0
    /// Bytes copied into the carry buffer so far (a test checks each byte is copied at most once).
    package private(set) var carriedByteCount = 0

    /// Capacity above which the carry buffer is released rather than kept after a value.
    static let retainedCapacity = 1 << 20

    package init(maxDepth: Int, maxValueBytes: Int) {
        scanner = JSONValueScanner(maxDepth: maxDepth, maxValueBytes: maxValueBytes)
    }

    /// Continues (or starts, at `bytes[start]`) the value under way. Returns the index after the
    /// value when it ended in `bytes` and was delivered, or `nil` after keeping the rest for later.
    @inline(__always)
    package mutating func advance(
        _ bytes: UnsafeRawBufferPointer, from start: Int, streamOffset: Int,
        _ onValue: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void
    ) throws -> Int? {
        if !scanner.isScanning && !carrying { valueOffset = streamOffset + start }
        guard let end = try scanner.scan(bytes, from: start, streamOffset: streamOffset) else {
            keep(UnsafeRawBufferPointer(rebasing: bytes[start...]))
            return nil
        }
        if carrying {
            keep(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            try deliverCarry(onValue)
        } else {
            try onValue(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), valueOffset)
        }
        return end
    }

    /// Delivers the carried value (a scalar completed by the end of input, or a finished value).
    package mutating func deliverCarry(_ onValue: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void) throws {
        scanner.reset()
        carrying = false
        defer {
            if carry.capacity > Self.retainedCapacity {
                carry = []
            } else {
                carry.removeAll(keepingCapacity: true)
            }
        }
        try carry.withUnsafeBytes { try onValue($0, valueOffset) }
    }

    private mutating func keep(_ bytes: UnsafeRawBufferPointer) {
        carrying = true
        carry.append(contentsOf: bytes)
        carriedByteCount += bytes.count
    }

    /// Whether a value has begun and not ended.
    package var isInsideValue: Bool { carrying || scanner.isScanning }
}

@inline(__always)
package func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
}
