// JSONSequenceFramer: cuts a stream of concatenated top-level JSON values (`{...}{...}`, or one
// per line) into its values.

@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON

/// Frames a stream of top-level JSON values written one after another (`{"a":1}{"b":2}`,
/// one per line, or separated by any whitespace), handing on each value's bytes as soon as it is
/// complete.
///
/// Objects, arrays and strings end at their closing byte; a top-level scalar (`123`, `true`) ends
/// at the whitespace or structural byte after it, or at the end of input. Values are not parsed.
///
/// ```swift
/// var framer = JSONSequenceFramer()
/// for chunk in chunks {
///     for value in try framer.feed(chunk) { try handle(value.bytes) }
/// }
/// for value in try framer.finish() { try handle(value.bytes) }   // a trailing scalar, if any
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

    /// A framer with these limits: `FramingConfiguration.maxDepth` and
    /// `FramingConfiguration.maxValueBytes`.
    public init(configuration: FramingConfiguration) {
        self.init(maxDepth: configuration.maxDepth, maxValueBytes: configuration.maxValueBytes)
    }

    /// Feeds the next piece of the stream, calling `onValue` with each value completed by it, in
    /// order, with the stream offset of the value's first byte.
    ///
    /// The buffer passed to `onValue` is valid only during the call. After any error every later
    /// call throws that error again.
    ///
    /// ```swift
    /// try chunk.withUnsafeBytes { bytes in
    ///     try framer.feed(bytes) { value, offset in try parser.parse(value) { print($0["type"]?.string ?? "") } }
    /// }
    /// ```
    @_spi(Dialects)
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        _ onValue: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void
    ) throws {
        if let failure { throw failure }
        do {
            try run(bytes, onValue)
        } catch {
            let error = FramingError.reporting(error)
            failure = error
            throw error
        }
        consumed += bytes.count
    }

    /// Ends the stream: delivers a top-level scalar still under way (`123` with nothing after it),
    /// and throws `.truncated` if the stream ends inside an object, array or string.
    @_spi(Dialects)
    public mutating func finish(_ onValue: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void) throws {
        if let failure { throw failure }
        guard core.isInsideValue else { return }
        guard core.scanner.endsAtEndOfInput else {
            let error = FramingError(
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

extension JSONSequenceFramer: StreamFramer {
    /// What the owned `feed(_:into:)` and `finish(into:)` give: a copy of each unit.
    public typealias Output = JSONValueBytes

    /// Feeds the next piece of the stream, lending each value it completes as a `FramedUnit`
    /// (no type; the data is the value).
    @_spi(Dialects) @inlinable @inline(__always)
    public mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, _ onUnit: (FramedUnit) throws -> Void) throws {
        try feed(bytes) { value, offset in try onUnit(FramedUnit(data: value, streamOffset: offset)) }
    }

    /// Ends the stream as `finish(_:)` does, lending a top-level scalar still under way.
    @_spi(Dialects)
    public mutating func finishUnits(_ onUnit: (FramedUnit) throws -> Void) throws -> StreamEnd {
        try finish { value, offset in try onUnit(FramedUnit(data: value, streamOffset: offset)) }
        return StreamEnd(totalBytes: consumed)
    }
}
