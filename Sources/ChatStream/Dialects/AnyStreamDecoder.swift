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
    /// Bytes held while the format is not yet known (bounded by ``maxDetectionBytes``).
    private var held: [UInt8] = []
    private var heldOffset = 0

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
        held.append(contentsOf: bytes)
        try detect(isComplete: false, emit: emit)
    }

    public mutating func finish(emit: (StreamEvent) throws -> Void) throws {
        if decoder == nil { try detect(isComplete: true, emit: emit) }
        try decoder!.finish(emit: emit)
    }

    private mutating func detect(isComplete: Bool, emit: (StreamEvent) throws -> Void) throws {
        let detection = held.withUnsafeBytes { StreamFormat.detect(prefix: $0, isComplete: isComplete) }
        switch detection {
        case .format(let detected):
            format = detected
            decoder = detected.makeDecoder(configuration: configuration)
            let bytes = held
            held = []
            try bytes.withUnsafeBytes { try decoder!.decode($0, emit: emit) }
        case .needMoreBytes:
            if held.count > Self.maxDetectionBytes {
                throw StreamError(
                    .malformed, message: "could not detect the stream format in the first \(held.count) bytes",
                    byteOffset: 0)
            }
        case .unknown where held.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }):
            throw StreamError(.truncated, message: "the stream ended before any data", byteOffset: held.count)
        case .unknown:
            throw StreamError(
                .malformed, message: "the stream is in no format ChatStream knows",
                byteOffset: 0)
        }
    }
}
