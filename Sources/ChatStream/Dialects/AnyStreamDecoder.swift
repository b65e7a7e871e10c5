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
        try detect(bytes, isComplete: false, emit: emit)
    }

    public mutating func finish(emit: (StreamEvent) throws -> Void) throws {
        if decoder == nil { try detect(UnsafeRawBufferPointer(start: nil, count: 0), isComplete: true, emit: emit) }
        try decoder!.finish(emit: emit)
    }

    private mutating func detect(
        _ bytes: UnsafeRawBufferPointer, isComplete: Bool, emit: (StreamEvent) throws -> Void
    ) throws {
        guard let (detected, held) = try detector.detect(bytes, isComplete: isComplete) else { return }
        format = detected
        decoder = detected.makeDecoder(configuration: configuration)
        try held.withUnsafeBytes { try decoder!.decode($0, emit: emit) }
    }
}
