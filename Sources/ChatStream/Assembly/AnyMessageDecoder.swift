// AnyMessageDecoder: a MessageDecoder for a format chosen at run time, or detected from the
// stream's first bytes. The decoder sits in a box and each call goes through the dialect's
// static requirements, so it runs the code specialised for the dialect (RegisteredDialect.swift:
// the technique AnyStreamDecoder uses too).

import ChatStreamFraming
import ChatStreamJSON

/// A ``MessageDecoder`` for a format chosen at run time, or detected from the stream's first
/// bytes: what ``AnyStreamDecoder`` is to ``StreamDecoder``.
///
/// Its messages are those of `MessageDecoder` for the format (and so those of decoder plus
/// assembler, event by event), at every chunking. Detection holds the first bytes until a line
/// decides the format (``StreamFormat/detect(prefix:isComplete:)``), as `AnyStreamDecoder` does.
///
/// ```swift
/// var decoder = AnyMessageDecoder(format: nil)   // detect
/// for chunk in chunks {
///     do { try decoder.feed(chunk) } catch { break }   // the error is kept in `failure`
/// }
/// let replies = decoder.finish()   // one message per choice
/// print(decoder.format?.rawValue ?? "unknown", replies[0].text)
/// ```
public struct AnyMessageDecoder {
    /// The options for the stream.
    public let configuration: StreamDecoderConfiguration
    private let toolInputLimits: JSONConfiguration
    /// The format's dialect and its decoder, once the format is known (``RegisteredDialect``).
    private var dialect: (any RegisteredDialect.Type)?
    private var box: DecoderBox?
    /// The first bytes, held until they show the format.
    private var detector = FormatDetector()
    /// The error that stopped decoding before there was a decoder (detection failed, or the
    /// stream failed first).
    private var detectionFailure: StreamError?

    /// A decoder for `format`, or one that detects the format when `format` is nil.
    public init(
        format: StreamFormat?, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration(),
        toolInputLimits: JSONConfiguration = JSONConfiguration()
    ) {
        self.configuration = configuration
        self.toolInputLimits = toolInputLimits
        self.format = format
        if let format { start(format) }
    }

    /// The format, once known.
    public private(set) var format: StreamFormat?

    /// The error that stopped decoding (or the truncation `finish` found); nil while all is well.
    public var failure: StreamError? { detectionFailure ?? box?.failure }

    /// How many units of unknown type the dialect skipped.
    public var unknownUnitCount: Int { box?.unknownUnitCount ?? 0 }

    /// Malformed units skipped in lenient mode, in order.
    public var skippedErrors: [StreamError] { box?.skippedErrors ?? [] }

    /// Feeds the next piece of the stream (`[UInt8]`, `ArraySlice`, `Data`, a raw buffer, ...):
    /// its events go into the message (nothing is returned; read ``message()`` or ``finish()``).
    ///
    /// - Throws: ``StreamError``, as ``MessageDecoder`` does, or when the format cannot be
    ///   detected (malformed: no format ChatStream knows, or none decided within
    ///   ``AnyStreamDecoder/maxDetectionBytes``). It is kept in ``failure``, and every later call
    ///   throws it again.
    @inlinable
    public mutating func feed(_ bytes: some Collection<UInt8>) throws {
        try withContiguousBytes(bytes) { try feed(raw: $0) }
    }

    /// ``feed(_:)`` on the bytes where they lie.
    @usableFromInline
    mutating func feed(raw bytes: UnsafeRawBufferPointer) throws {
        if let detectionFailure { throw detectionFailure }
        if let dialect, let box = uniqueBox() {
            try dialect.feed(box, bytes)
        } else {
            try detect(bytes, isComplete: false)
        }
    }

    /// The current choice's message as it stands (empty while the format is not yet known).
    public mutating func message() -> AssembledMessage {
        guard let dialect, let box = uniqueBox() else {
            return MessageAssembler(toolInputLimits: toolInputLimits).message
        }
        return dialect.message(box)
    }

    /// Ends the stream and returns every choice's final message, as ``MessageDecoder/finish()``
    /// does; a stream that ended before its format was known is an error recorded in the
    /// message (truncated when it held only whitespace).
    public mutating func finish() -> [AssembledMessage] {
        if format == nil, detectionFailure == nil {
            try? detect(UnsafeRawBufferPointer(start: nil, count: 0), isComplete: true)
        }
        guard let dialect, let box = uniqueBox() else { return messagesWithoutDecoder() }
        return dialect.finishMessages(box, error: nil)
    }

    /// Ends the stream because reading it failed below the bytes, as
    /// `MessageDecoder.finish(error:)` does.
    mutating func finish(error: StreamError) -> [AssembledMessage] {
        if let dialect, let box = uniqueBox() { return dialect.finishMessages(box, error: error) }
        if detectionFailure == nil { detectionFailure = error }
        return messagesWithoutDecoder()
    }

    /// The final messages of a stream that ended before its format was known: one empty
    /// message, with the failure recorded.
    private func messagesWithoutDecoder() -> [AssembledMessage] {
        var assembler = MessageAssembler(toolInputLimits: toolInputLimits)
        return assembler.finish(error: failure)
    }

    /// Holds `bytes` until they show the format; then makes its decoder and decodes them.
    private mutating func detect(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) throws {
        let detected: (format: StreamFormat, held: [UInt8])?
        do {
            detected = try detector.detect(bytes, isComplete: isComplete)
        } catch {
            let failure = StreamError(converting: error)
            detectionFailure = failure
            throw failure
        }
        guard let (format, held) = detected else { return }
        self.format = format
        start(format)
        try held.withUnsafeBytes { try dialect!.feed(box!, $0) }
    }

    /// Makes the decoder of `format`.
    private mutating func start(_ format: StreamFormat) {
        dialect = format.dialect
        box = format.dialect.makeMessageDecoder(configuration: configuration, toolInputLimits: toolInputLimits)
    }

    /// The decoder's box, copied first when a copy of this decoder shares it.
    private mutating func uniqueBox() -> DecoderBox? {
        if box != nil, !isKnownUniquelyReferenced(&box!) { box = box!.copy() }
        return box
    }
}
