// JSONArrayElementFramer and JSONSequenceFramer: cut a byte stream into complete JSON values.
//
// Gemini's REST streaming sends one top-level array, `[{...}\n,{...}\n]`, in arbitrary network
// pieces, and each element must be handed on as soon as its last byte arrives, not at `]`. Other
// streams concatenate top-level values (`{...}{...}` or one per line). Both framers follow the
// architecture's rule: frame with a byte scan (``JSONValueScanner``), then give each complete
// value's bytes to the parser.
//
// Copies: an element that lies wholly inside one fed chunk is passed as a slice of that chunk.
// An element cut by a chunk boundary is gathered in a carry buffer, each of its bytes copied
// there exactly once; the buffer is emptied (keeping its capacity, up to 1 MiB) after the element
// is delivered, so it never grows beyond the largest element and is never shifted.

/// The carry buffer and scanner shared by both framers: delivers one value at a time.
struct JSONFramerCarry: Sendable {
    var scanner: JSONValueScanner
    /// Bytes of a value that began in an earlier chunk.
    private(set) var carry: [UInt8] = []
    /// Whether the value under way began in an earlier chunk (its first bytes are in `carry`).
    private var carrying = false
    /// The stream offset of the value under way's first byte.
    private(set) var valueOffset = 0
    /// Bytes copied into the carry buffer so far (a test checks each byte is copied at most once).
    private(set) var carriedByteCount = 0

    /// Capacity above which the carry buffer is released rather than kept after a value.
    static let retainedCapacity = 1 << 20

    init(maxDepth: Int, maxValueBytes: Int) {
        scanner = JSONValueScanner(maxDepth: maxDepth, maxValueBytes: maxValueBytes)
    }

    /// Continues (or starts, at `bytes[start]`) the value under way. Returns the index after the
    /// value when it ended in `bytes` and was delivered, or `nil` after keeping the rest for later.
    @inline(__always)
    mutating func advance(
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
    mutating func deliverCarry(_ onValue: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void) throws {
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
    var isInsideValue: Bool { carrying || scanner.isScanning }
}

@inline(__always)
private func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
}

/// Frames the elements of one top-level JSON array that arrives in pieces (Gemini's REST
/// streaming), handing on each element's bytes as soon as the element is complete.
///
/// The stream is whitespace, `[`, elements separated by `,`, `]`, whitespace. Elements are not
/// parsed: the framer finds their ends (skipping `]`, `,` and quotes inside strings) and the
/// parser checks them. Output never depends on how the input is cut.
///
/// ```swift
/// var framer = JSONArrayElementFramer()
/// for chunk in chunks {
///     for element in try framer.feed(chunk) { try handle(element) }   // [UInt8] per element
/// }
/// try framer.finish()   // throws `.truncated` if `]` never came
/// ```
public struct JSONArrayElementFramer: Sendable {
    private enum State: UInt8, Sendable {
        case beforeArray, afterOpen, beforeElement, inElement, afterElement, closed
    }

    private var state = State.beforeArray
    private var core: JSONFramerCarry
    private var consumed = 0
    private var failure: (any Error)?
    /// How many bytes of a byte-order mark opened the body (0 to 3).
    private var bomBytes: UInt8 = 0
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The number of elements delivered so far.
    public private(set) var elementCount = 0

    /// A framer.
    /// - Parameters:
    ///   - maxDepth: the deepest nesting allowed inside one element (the enclosing array does not count).
    ///   - maxElementBytes: the most bytes one element may have; also bounds the carry buffer.
    public init(maxDepth: Int = 512, maxElementBytes: Int = 16 << 20) {
        core = JSONFramerCarry(maxDepth: maxDepth, maxValueBytes: maxElementBytes)
    }

    /// Feeds the next piece of the stream, calling `onElement` with each element completed by it,
    /// in order, with the stream offset of the element's first byte.
    ///
    /// The buffer passed to `onElement` is valid only during the call: it is a slice of `bytes`
    /// when the element lies wholly in it, else the framer's carry buffer. After any error (the
    /// framer's or one thrown by `onElement`) every later call throws that error again.
    ///
    /// ```swift
    /// try chunk.withUnsafeBytes { bytes in
    ///     try framer.feed(bytes) { element, offset in try parser.parse(element) }
    /// }
    /// ```
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        _ onElement: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void
    ) throws {
        if let failure { throw failure }
        do {
            try run(bytes, onElement)
        } catch {
            failure = error
            throw error
        }
        consumed += bytes.count
    }

    /// Feeds the next piece of the stream and returns copies of the elements it completed.
    public mutating func feed(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var elements: [[UInt8]] = []
        try bytes.withUnsafeBytes { buffer in
            try feed(buffer) { element, _ in elements.append(Array(element)) }
        }
        return elements
    }

    /// Ends the stream: throws unless the array was closed by `]` (`.truncated` says how many
    /// elements were delivered), or the error that stopped the framer.
    public mutating func finish() throws {
        if let failure { throw failure }
        guard state == .closed else {
            let error = truncation()
            failure = error
            throw error
        }
    }

    @inline(never)
    private func truncation() -> JSONFramingError {
        let delivered = "after \(elementCount) complete element\(elementCount == 1 ? "" : "s")"
        let message: String
        switch state {
        case .beforeArray: message = "stream ended before the array's '['"
        case .inElement:
            message = "stream ended inside an element that starts at byte \(core.valueOffset), \(delivered)"
        default: message = "stream ended before the array's closing ']', \(delivered)"
        }
        return JSONFramingError(.truncated, at: consumed, message)
    }

    private mutating func run(
        _ bytes: UnsafeRawBufferPointer,
        _ onElement: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void
    ) throws {
        let count = bytes.count
        var i = 0
        while i < count {
            if state == .inElement {
                guard let end = try core.advance(bytes, from: i, streamOffset: consumed, onElement) else { return }
                elementCount += 1
                state = .afterElement
                i = end
                continue
            }
            let byte = bytes[i]
            if isJSONWhitespace(byte) {
                i += 1
                continue
            }
            switch state {
            case .beforeArray:
                // A UTF-8 byte-order mark at the very start of the body is skipped (RFC 8259, 8.1).
                let offset = consumed + i
                if offset < 3 && Int(bomBytes) == offset && byte == Self.byteOrderMark[offset] {
                    bomBytes += 1
                    i += 1
                    continue
                }
                guard byte == UInt8(ascii: "[") && (bomBytes == 0 || bomBytes == 3) else {
                    if bomBytes > 0 && bomBytes < 3 {
                        throw JSONFramingError(
                            .expectedArrayStart, at: offset,
                            "an incomplete byte-order mark before the array, then \(JSONValueScanner.describe(byte))")
                    }
                    throw JSONFramingError(
                        .expectedArrayStart, at: consumed + i,
                        "expected '[' to open the array, found \(JSONValueScanner.describe(byte))")
                }
                state = .afterOpen
                i += 1
            case .afterOpen where byte == UInt8(ascii: "]"):
                state = .closed
                i += 1
            case .afterOpen, .beforeElement:
                guard JSONValueScanner.canStartValue(byte) else {
                    throw JSONFramingError(
                        .unexpectedByte, at: consumed + i,
                        "expected an array element, found \(JSONValueScanner.describe(byte))")
                }
                state = .inElement
            case .afterElement:
                if byte == UInt8(ascii: ",") {
                    state = .beforeElement
                } else if byte == UInt8(ascii: "]") {
                    state = .closed
                } else {
                    throw JSONFramingError(
                        .unexpectedByte, at: consumed + i,
                        "expected ',' or ']' after element \(elementCount), found \(JSONValueScanner.describe(byte))")
                }
                i += 1
            case .closed:
                throw JSONFramingError(
                    .trailingData, at: consumed + i,
                    "unexpected \(JSONValueScanner.describe(byte)) after the array's closing ']'")
            case .inElement:
                preconditionFailure("unreachable: handled above")
            }
        }
    }

    /// Bytes copied into the carry buffer so far (tests check the carry copies each byte at most once).
    var carriedByteCount: Int { core.carriedByteCount }
    /// The carry buffer's capacity (tests check memory stays bounded).
    var carryCapacity: Int { core.carry.capacity }
}

/// Frames a stream of top-level JSON values written one after another (`{"a":1}{"b":2}`,
/// one per line, or separated by any whitespace), handing on each value's bytes as soon as it is
/// complete.
///
/// Objects, arrays and strings end at their closing byte; a top-level scalar (`123`, `true`) ends
/// at the whitespace or structural byte after it, or at ``finish(_:)``. Values are not parsed.
///
/// ```swift
/// var framer = JSONSequenceFramer()
/// for chunk in chunks {
///     for value in try framer.feed(chunk) { try handle(value) }
/// }
/// for value in try framer.finish() { try handle(value) }   // a trailing scalar, if any
/// ```
public struct JSONSequenceFramer: Sendable {
    private var core: JSONFramerCarry
    private var consumed = 0
    private var failure: (any Error)?

    /// The number of values delivered so far.
    public private(set) var valueCount = 0

    /// A framer.
    /// - Parameters:
    ///   - maxDepth: the deepest nesting allowed in one value.
    ///   - maxValueBytes: the most bytes one value may have; also bounds the carry buffer.
    public init(maxDepth: Int = 512, maxValueBytes: Int = 16 << 20) {
        core = JSONFramerCarry(maxDepth: maxDepth, maxValueBytes: maxValueBytes)
    }

    /// Feeds the next piece of the stream, calling `onValue` with each value completed by it, in
    /// order, with the stream offset of the value's first byte.
    ///
    /// The buffer passed to `onValue` is valid only during the call. After any error every later
    /// call throws that error again.
    ///
    /// ```swift
    /// try chunk.withUnsafeBytes { bytes in
    ///     try framer.feed(bytes) { value, offset in try parser.parse(value) }
    /// }
    /// ```
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        _ onValue: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void
    ) throws {
        if let failure { throw failure }
        do {
            try run(bytes, onValue)
        } catch {
            failure = error
            throw error
        }
        consumed += bytes.count
    }

    /// Feeds the next piece of the stream and returns copies of the values it completed.
    public mutating func feed(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var values: [[UInt8]] = []
        try bytes.withUnsafeBytes { buffer in
            try feed(buffer) { value, _ in values.append(Array(value)) }
        }
        return values
    }

    /// Ends the stream: delivers a top-level scalar still under way (`123` with nothing after it),
    /// and throws `.truncated` if the stream ends inside an object, array or string.
    public mutating func finish(_ onValue: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void) throws {
        if let failure { throw failure }
        guard core.isInsideValue else { return }
        guard core.scanner.endsAtEndOfInput else {
            let error = JSONFramingError(
                .truncated, at: consumed,
                "stream ended inside a value that starts at byte \(core.valueOffset), after \(valueCount) complete values"
            )
            failure = error
            throw error
        }
        do {
            try core.deliverCarry(onValue)
            valueCount += 1
        } catch {
            failure = error
            throw error
        }
    }

    /// Ends the stream, returning a copy of the top-level scalar still under way, if any.
    public mutating func finish() throws -> [[UInt8]] {
        var values: [[UInt8]] = []
        try finish { value, _ in values.append(Array(value)) }
        return values
    }

    private mutating func run(
        _ bytes: UnsafeRawBufferPointer,
        _ onValue: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void
    ) throws {
        let count = bytes.count
        var i = 0
        while i < count {
            if !core.isInsideValue {
                let byte = bytes[i]
                if isJSONWhitespace(byte) {
                    i += 1
                    continue
                }
            }
            guard let end = try core.advance(bytes, from: i, streamOffset: consumed, onValue) else { return }
            valueCount += 1
            i = end
        }
    }

    /// Bytes copied into the carry buffer so far.
    var carriedByteCount: Int { core.carriedByteCount }
}
