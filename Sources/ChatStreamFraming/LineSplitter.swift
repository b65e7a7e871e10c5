// LineSplitter: the line layer shared by every framing.
//
// Input arrives in pieces of any size. A line that lies wholly inside one piece is handed to the
// caller as a pointer straight into that piece (no copy). Only a line that spans pieces is
// gathered in `carry`, which is reused (its capacity kept) from line to line. The carry never
// holds more than `maxLineBytes`: the scan for a line ending looks at most `maxLineBytes + 1`
// bytes ahead, so an endless line fails as soon as it passes the limit, however large the piece.
//
// SSE ends lines with CR, LF or CRLF; a CR that ends one piece may be followed by the LF of a CRLF
// at the start of the next, so `skipLeadingLF` remembers it. NDJSON and data stream v4 end lines
// with LF only, and one CR before the LF is dropped. A caller may first be offered each line that
// starts inside the piece (`feed(_:skipping:_:)`) and consume whole lines itself (SSE's one-step
// block).

struct LineSplitter: Sendable {
    /// Which bytes end a line.
    enum Endings: Sendable {
        /// CR, LF or CRLF (server-sent events).
        case crLFOrCRLF
        /// LF, with one CR before it dropped from the line (NDJSON, data stream v4).
        case lf
    }

    /// Above this, a buffer's storage is released rather than kept for reuse.
    static let retainedCapacity = 1 << 20

    let endings: Endings
    let maxLineBytes: Int
    /// The start of a line whose ending has not arrived yet.
    private var carry: [UInt8] = []
    /// Stream offset of `carry[0]`.
    private var carryStart = 0
    /// The previous piece ended with a CR, so an LF at the start of the next belongs to it.
    private var skipLeadingLF = false
    /// Bytes fed so far.
    private(set) var streamOffset = 0

    init(endings: Endings, maxLineBytes: Int) {
        self.endings = endings
        self.maxLineBytes = max(0, maxLineBytes)
    }

    /// Bytes held for an unfinished line.
    var bufferedByteCount: Int { carry.count }

    /// Offset of the unfinished line at the end of the input so far, if there is one.
    var partialLineOffset: Int? { carry.isEmpty ? nil : carryStart }

    /// Splits `input` into lines and calls `onLine(line, offsetOfLine, lineIsInInput)` for each
    /// complete one; `line` excludes its ending and is valid only during the call.
    @inline(__always)
    mutating func feed(
        _ input: UnsafeRawBufferPointer,
        _ onLine: (UnsafeRawBufferPointer, Int, Bool) throws -> Void
    ) throws {
        try feed(input, skipping: { _, _, _, _ in nil }, onLine)
    }

    /// Like ``feed(_:_:)``, first offering each line that starts inside `input` (nothing carried)
    /// to `skip(input, index, streamOffsetOfIndex, &finder)`, which may consume whole lines
    /// itself and return the index after them, or return nil to leave the line to `onLine`.
    @inline(__always)
    mutating func feed(
        _ input: UnsafeRawBufferPointer,
        skipping skip: (UnsafeRawBufferPointer, Int, Int, inout LineEndFinder) throws -> Int?,
        _ onLine: (UnsafeRawBufferPointer, Int, Bool) throws -> Void
    ) throws {
        let count = input.count
        guard count > 0, let base = input.baseAddress else { return }
        let start = streamOffset
        let orCR = endings == .crLFOrCRLF
        var index = 0
        var finder = LineEndFinder(base, count: count)
        if skipLeadingLF {
            skipLeadingLF = false
            if base.load(as: UInt8.self) == ByteScan.lf { index = 1 }
        }
        while index < count {
            if carry.isEmpty, let next = try skip(input, index, start &+ index, &finder) {
                index = next
                continue
            }
            let room = maxLineBytes - carry.count
            let window = room < count - index ? room + 1 : count - index
            guard let end = finder.find(from: index, to: index + window, orCR: orCR) else {
                if count - index > room {
                    throw FramingError.lineTooLong(
                        lineStart: carry.isEmpty ? start + index : carryStart, limit: maxLineBytes)
                }
                if carry.isEmpty { carryStart = start + index }
                carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<count]))
                break
            }
            if end - index > room {
                throw FramingError.lineTooLong(
                    lineStart: carry.isEmpty ? start + index : carryStart, limit: maxLineBytes)
            }
            if carry.isEmpty {
                try onLine(trimmed(UnsafeRawBufferPointer(rebasing: input[index..<end])), start + index, true)
            } else {
                carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<end]))
                try deliverCarry(onLine)
            }
            index = end + 1
            if orCR && base.load(fromByteOffset: end, as: UInt8.self) == ByteScan.cr {
                if index < count {
                    if base.load(fromByteOffset: index, as: UInt8.self) == ByteScan.lf { index += 1 }
                } else {
                    skipLeadingLF = true
                }
            }
        }
        streamOffset = start + count
    }

    /// Hands the unfinished line, if any, to `onLine` as if it had ended (NDJSON and v4 at EOF).
    mutating func flush(_ onLine: (UnsafeRawBufferPointer, Int, Bool) throws -> Void) throws {
        if !carry.isEmpty { try deliverCarry(onLine) }
    }

    /// Forgets everything, ready for a new stream.
    mutating func reset() {
        carry.removeAll(keepingCapacity: carry.capacity <= Self.retainedCapacity)
        carryStart = 0
        skipLeadingLF = false
        streamOffset = 0
    }

    /// Drops one CR before the LF in `.lf` mode.
    @inline(__always)
    private func trimmed(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if endings == .lf, let last = line.last, last == ByteScan.cr {
            return UnsafeRawBufferPointer(rebasing: line.dropLast())
        }
        return line
    }

    @inline(never)
    private mutating func deliverCarry(_ onLine: (UnsafeRawBufferPointer, Int, Bool) throws -> Void) throws {
        // Move the carry out so `onLine` may run while `self` is being mutated; put it back after.
        var line: [UInt8] = []
        swap(&line, &carry)
        defer {
            line.removeAll(keepingCapacity: line.capacity <= Self.retainedCapacity)
            swap(&line, &carry)
        }
        try line.withUnsafeBytes { try onLine(trimmed($0), carryStart, false) }
    }
}
