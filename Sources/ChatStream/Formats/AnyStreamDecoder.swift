/// A decoder for a format chosen at run time, or detected from the stream's first bytes.
///
/// ```swift
/// var decoder = AnyStreamDecoder(format: nil)   // detect
/// let events = try decoder.decode(bytes)
/// try decoder.finish { print($0) }
/// ```
public struct AnyStreamDecoder: StreamEventDecoding {
    public let configuration: StreamDecoderConfiguration
    private var decoder: (any StreamEventDecoding)?
    /// The first bytes, held until they show the format.
    private var detector = FormatDetector()

    /// The most bytes held while detecting before giving up.
    public static let maxDetectionBytes = 1 << 20

    /// A decoder for `format`, or one that detects the format when `format` is nil.
    public init(format: StreamFormat?, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()) {
        self.configuration = configuration
        decoder = format?.makeDecoder(configuration: configuration)
        self.format = format
    }

    /// The format, once known.
    public private(set) var format: StreamFormat?

    public var unknownUnitCount: Int { decoder?.unknownUnitCount ?? 0 }
    public var skippedErrors: [StreamError] { decoder?.skippedErrors ?? [] }

    public mutating func decode(_ bytes: UnsafeRawBufferPointer, emit: (StreamEvent) throws -> Void) throws {
        if decoder != nil {
            try decoder!.decode(bytes, emit: emit)
            return
        }
        try detect(bytes, isComplete: false) { decoder, held in try decoder.decode(held, emit: emit) }
    }

    public mutating func decodeViews(
        _ bytes: UnsafeRawBufferPointer, _ body: (StreamEventView) throws -> Void
    ) throws {
        if decoder != nil {
            try decoder!.decodeViews(bytes, body)
            return
        }
        try detect(bytes, isComplete: false) { decoder, held in try decoder.decodeViews(held, body) }
    }

    public mutating func finish(emit: (StreamEvent) throws -> Void) throws {
        if decoder == nil {
            try detect(UnsafeRawBufferPointer(start: nil, count: 0), isComplete: true) { decoder, held in
                try decoder.decode(held, emit: emit)
            }
        }
        try decoder!.finish(emit: emit)
    }

    /// Feeds the detector; once the format shows, makes its decoder and has `decodeHeld` decode
    /// the bytes held so far with it.
    private mutating func detect(
        _ bytes: UnsafeRawBufferPointer, isComplete: Bool,
        _ decodeHeld: (inout any StreamEventDecoding, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let (detected, held) = try detector.detect(bytes, isComplete: isComplete) else { return }
        format = detected
        var made = detected.makeDecoder(configuration: configuration)
        defer { decoder = made }
        try held.withUnsafeBytes { try decodeHeld(&made, $0) }
    }
}
