import ChatStreamFraming

/// A decoder for a format chosen at run time, or detected from the stream's first bytes.
///
/// ```swift
/// var decoder = AnyStreamDecoder(format: nil)   // detect
/// let events = try decoder.feed(bytes)
/// let last = try decoder.finish()
/// ```
public struct AnyStreamDecoder: StreamEventDecoding {
    public let configuration: StreamDecoderConfiguration
    /// The format's dialect and its decoder, once the format is known (``RegisteredDialect``).
    private var dialect: (any RegisteredDialect.Type)?
    private var box: DecoderBox?
    /// The first bytes, held until they show the format.
    private var detector = FormatDetector()

    /// The most bytes held while detecting before giving up.
    public static let maxDetectionBytes = 1 << 20

    /// A decoder for `format`, or one that detects the format when `format` is nil.
    public init(format: StreamFormat?, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()) {
        self.configuration = configuration
        self.format = format
        if let format { start(format) }
    }

    /// The format, once known.
    public private(set) var format: StreamFormat?

    public var unknownUnitCount: Int { box?.unknownUnitCount ?? 0 }
    public var skippedErrors: [StreamError] { box?.skippedErrors ?? [] }

    /// Feeds the next piece of the stream into `sink`, as `StreamDecoder<D>.feed(_:into:)` does
    /// (the format detected first when none was given: the bytes are held until it shows).
    ///
    /// - Throws: ``StreamError``, as `StreamDecoder` does, or when the format cannot be detected.
    @inlinable
    public mutating func feed(_ bytes: some Collection<UInt8>, into sink: inout some StreamEventSink) throws {
        try withContiguousBytes(bytes) { buffer in
            try feed(buffer, textDelta: { try sink.textDelta(id: $0, delta: $1) }, emit: { try sink.take($0) })
        }
    }

    /// Feeds the next piece of the stream, appending its events to `events`.
    @inlinable
    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [StreamEvent]) throws {
        try withContiguousBytes(bytes) { buffer in
            try feed(
                buffer, textDelta: { events.append(.textDelta(id: $0, delta: $1.string)) },
                emit: { events.append($0) })
        }
    }

    /// Ends the stream into `sink`, exactly as `StreamDecoder<D>.finish(into:)` does (a last text
    /// delta lent to ``StreamEventSink/textDelta(id:delta:)``).
    @inlinable @discardableResult
    public mutating func finish(into sink: inout some StreamEventSink) throws -> StreamEnd {
        try finish(textDelta: { try sink.textDelta(id: $0, delta: $1) }, emit: { try sink.take($0) })
    }

    /// Ends the stream, appending the last events to `events`.
    @inlinable @discardableResult
    public mutating func finish(into events: inout [StreamEvent]) throws -> StreamEnd {
        try finish(textDelta: { events.append(.textDelta(id: $0, delta: $1.string)) }, emit: { events.append($0) })
    }

    /// Feeds `bytes` to the format's decoder (detecting the format first), its events to the two
    /// ways out the public forms make for their reader.
    @usableFromInline
    mutating func feed(_ bytes: UnsafeRawBufferPointer, textDelta: TextDeltaSink, emit: EventSink) throws {
        if let dialect, let box = uniqueBox() {
            try dialect.feedEvents(box, bytes, textDelta: textDelta, emit: emit)
            return
        }
        try detect(bytes, isComplete: false) { dialect, box, held in
            try dialect.feedEvents(box, held, textDelta: textDelta, emit: emit)
        }
    }

    /// Ends the stream (detecting the format from what was held, when it is not yet known).
    @usableFromInline
    mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws -> StreamEnd {
        if dialect == nil {
            try detect(UnsafeRawBufferPointer(start: nil, count: 0), isComplete: true) { dialect, box, held in
                try dialect.feedEvents(box, held, textDelta: textDelta, emit: emit)
            }
        }
        return try dialect!.finishEvents(uniqueBox()!, textDelta: textDelta, emit: emit)
    }

    /// Makes the decoder of `format`.
    private mutating func start(_ format: StreamFormat) {
        dialect = format.dialect
        box = format.dialect.makeEventDecoder(configuration: configuration)
    }

    /// The decoder's box, copied first when a copy of this decoder shares it.
    private mutating func uniqueBox() -> DecoderBox? {
        if box != nil, !isKnownUniquelyReferenced(&box!) { box = box!.copy() }
        return box
    }

    /// Feeds the detector; once the format shows, makes its decoder and has `decodeHeld` decode
    /// the bytes held so far with it.
    private mutating func detect(
        _ bytes: UnsafeRawBufferPointer, isComplete: Bool,
        _ decodeHeld: (any RegisteredDialect.Type, DecoderBox, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let (detected, held) = try detector.detect(bytes, isComplete: isComplete) else { return }
        format = detected
        start(detected)
        try held.withUnsafeBytes { try decodeHeld(dialect!, box!, $0) }
    }
}
