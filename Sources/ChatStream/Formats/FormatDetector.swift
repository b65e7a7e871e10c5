/// The first bytes of a stream whose format is not given, held until they show it: the
/// detection ``AnyStreamDecoder`` and ``AnyMessageDecoder`` do before they have a decoder.
struct FormatDetector {
    /// Bytes held while the format is not yet known (bounded by `AnyStreamDecoder.maxDetectionBytes`).
    private var held: [UInt8] = []
    /// How far detection has read `held`, so each call reads only what is new.
    private var progress = StreamFormat.DetectionProgress()

    /// Adds `bytes` to those held; once they show the format, returns it with every byte held
    /// (to be decoded first), and holds nothing more.
    ///
    /// - Parameter isComplete: no more bytes will come (the stream has ended).
    /// - Throws: ``StreamError``: malformed when the bytes are in no format ChatStream knows or
    ///   the first ``AnyStreamDecoder/maxDetectionBytes`` do not decide it; truncated when the
    ///   stream ended with nothing but whitespace.
    mutating func detect(
        _ bytes: UnsafeRawBufferPointer, isComplete: Bool
    ) throws -> (format: StreamFormat, held: [UInt8])? {
        held.append(contentsOf: bytes)
        let detection = held.withUnsafeBytes {
            StreamFormat.detect(prefix: $0, isComplete: isComplete, resuming: &progress)
        }
        switch detection {
        case .format(let detected):
            defer { held = [] }
            return (detected, held)
        case .needMoreBytes:
            if held.count > AnyStreamDecoder.maxDetectionBytes {
                throw StreamError(
                    .malformed, message: "could not detect the stream format in the first \(held.count) bytes",
                    byteOffset: 0)
            }
            return nil
        case .unknown where held.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }):
            throw StreamError(.truncated, message: "the stream ended before any data", byteOffset: held.count)
        case .unknown:
            throw StreamError(
                .malformed, message: "the stream is in no format ChatStream knows",
                byteOffset: 0)
        }
    }
}
