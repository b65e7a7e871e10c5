// JSONArrayElementFramer: cuts a streamed top-level JSON array into its elements.
//
// Gemini's REST streaming sends one top-level array, `[{...}\n,{...}\n]`, in arbitrary network
// pieces, and each element must be handed on as soon as its last byte arrives, not at `]`.

import ChatStreamBytes
@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON

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
///     for element in try framer.feed(chunk) { try handle(element.bytes) }   // a JSONValueBytes each
/// }
/// _ = try framer.finish()   // throws `.truncated` if `]` never came
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

    /// A framer with these limits: `FramingConfiguration.maxDepth` and
    /// `FramingConfiguration.maxValueBytes` (per element).
    public init(configuration: FramingConfiguration) {
        self.init(maxDepth: configuration.maxDepth, maxElementBytes: configuration.maxValueBytes)
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
    ///     try framer.feed(bytes) { element, offset in try parser.parse(element) { print($0["type"]?.string ?? "") } }
    /// }
    /// ```
    @_spi(Dialects)
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        _ onElement: (UnsafeRawBufferPointer, _ streamOffset: Int) throws -> Void
    ) throws {
        if let failure { throw failure }
        do {
            try run(bytes, onElement)
        } catch {
            let error = FramingError.reporting(error)
            failure = error
            throw error
        }
        consumed += bytes.count
    }

    /// Ends the stream: throws unless the array was closed by `]` (`.truncated` says how many
    /// elements were delivered), or the error that stopped the framer.
    private mutating func checkClosed() throws {
        if let failure { throw failure }
        guard state == .closed else {
            let error = truncation()
            failure = error
            throw error
        }
    }

    @inline(never)
    private func truncation() -> FramingError {
        let delivered = "after \(elementCount) complete element\(elementCount == 1 ? "" : "s")"
        let message: String
        switch state {
        case .beforeArray: message = "stream ended before the array's '['"
        case .inElement:
            message = "stream ended inside an element that starts at byte \(core.valueOffset), \(delivered)"
        default: message = "stream ended before the array's closing ']', \(delivered)"
        }
        return FramingError(.truncated, at: consumed, message)
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
                        throw FramingError(
                            .expectedArrayStart, at: offset,
                            "an incomplete byte-order mark before the array, then \(describeByte(byte))")
                    }
                    throw FramingError(
                        .expectedArrayStart, at: consumed + i,
                        "expected '[' to open the array, found \(describeByte(byte))")
                }
                state = .afterOpen
                i += 1
            case .afterOpen where byte == UInt8(ascii: "]"):
                state = .closed
                i += 1
            case .afterOpen, .beforeElement:
                guard JSONValueScanner.canStartValue(byte) else {
                    throw FramingError(
                        .unexpectedByte, at: consumed + i,
                        "expected an array element, found \(describeByte(byte))")
                }
                state = .inElement
            case .afterElement:
                if byte == UInt8(ascii: ",") {
                    state = .beforeElement
                } else if byte == UInt8(ascii: "]") {
                    state = .closed
                } else {
                    throw FramingError(
                        .unexpectedByte, at: consumed + i,
                        "expected ',' or ']' after element \(elementCount), found \(describeByte(byte))")
                }
                i += 1
            case .closed:
                throw FramingError(
                    .trailingData, at: consumed + i,
                    "unexpected \(describeByte(byte)) after the array's closing ']'")
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

extension JSONArrayElementFramer: StreamFramer {
    /// What the owned `feed(_:into:)` and `finish(into:)` give: a copy of each unit.
    public typealias Output = JSONValueBytes

    /// Feeds the next piece of the stream, lending each element it completes as a `FramedUnit`
    /// (no type; the data is the element).
    @_spi(Dialects) @inlinable @inline(__always)
    public mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, _ onUnit: (FramedUnit) throws -> Void) throws {
        try feed(bytes) { element, offset in try onUnit(FramedUnit(data: element, streamOffset: offset)) }
    }

    /// Ends the stream: every element was delivered as it completed, so nothing is lent.
    ///
    /// - Throws: `FramingError` `.truncated` unless the array was closed by `]` (it says how many
    ///   elements were delivered), or the error that stopped the framer.
    @_spi(Dialects)
    public mutating func finishUnits(_ onUnit: (FramedUnit) throws -> Void) throws -> StreamEnd {
        try checkClosed()
        return StreamEnd(totalBytes: consumed)
    }
}
