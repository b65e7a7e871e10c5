import ChatStreamFraming

/// A decoder for a format chosen at run time, or detected from the stream's first bytes.
///
/// ```swift
/// var decoder = AnyStreamDecoder(format: nil)   // detect
/// let events = try decoder.feed(bytes)
/// try decoder.finish { print($0) }
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

    public mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (StreamEvent) throws -> Void) throws {
        if let dialect, let box = uniqueBox() {
            try dialect.feedEvents(box, bytes, emit: emit)
            return
        }
        try detect(bytes, isComplete: false) { dialect, box, held in try dialect.feedEvents(box, held, emit: emit) }
    }

    public mutating func feedViews(
        _ bytes: UnsafeRawBufferPointer, _ body: (StreamEventView) throws -> Void
    ) throws {
        if let dialect, let box = uniqueBox() {
            try dialect.feedViews(box, bytes, body)
            return
        }
        try detect(bytes, isComplete: false) { dialect, box, held in try dialect.feedViews(box, held, body) }
    }

    @discardableResult
    public mutating func finish(emit: (StreamEvent) throws -> Void) throws -> StreamEnd {
        if dialect == nil {
            try detect(UnsafeRawBufferPointer(start: nil, count: 0), isComplete: true) { dialect, box, held in
                try dialect.feedEvents(box, held, emit: emit)
            }
        }
        return try dialect!.finish(uniqueBox()!, emit: emit)
    }

    /// Ends the stream as ``finish(emit:)`` does, lending the last events to `body` exactly as
    /// `StreamDecoder<D>.finishViews(_:)` lends them (a last text delta as
    /// ``StreamEventView/textDelta(id:delta:)``).
    @discardableResult
    public mutating func finishViews(_ body: (StreamEventView) throws -> Void) throws -> StreamEnd {
        if dialect == nil {
            try detect(UnsafeRawBufferPointer(start: nil, count: 0), isComplete: true) { dialect, box, held in
                try dialect.feedViews(box, held, body)
            }
        }
        return try dialect!.finishViews(uniqueBox()!, body)
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
