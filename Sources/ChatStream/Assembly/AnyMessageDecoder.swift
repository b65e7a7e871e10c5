// AnyMessageDecoder: a MessageDecoder for a format chosen at run time, or detected from the
// stream's first bytes.
//
// `MessageDecoder` is generic over its dialect so that the hot path is specialised for it. Held
// as an existential (`any`, the way `AnyStreamDecoder` holds its decoder) it would run the
// unspecialised generic code, which looks generic metadata up for every unit. So the decoder
// sits in an enum with one case per format, and each operation is a small type with a generic
// method that the one switch (`apply`) calls with the concrete decoder: a switch per call (per
// chunk), then exactly the code `MessageDecoder<SomeDialect>` runs. The decoder is taken out of
// the enum while it works, so it stays uniquely referenced and is mutated in place.

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
///     do { try decoder.decode(chunk) } catch { break }   // the error is kept in `failure`
/// }
/// let replies = decoder.finish()   // one message per choice
/// print(decoder.format?.rawValue ?? "unknown", replies[0].text)
/// ```
public struct AnyMessageDecoder {
    /// The options for the stream.
    public let configuration: StreamDecoderConfiguration
    private let toolInputLimits: JSONConfiguration
    private var decoder: FormatDecoder
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
        decoder =
            format.map { FormatDecoder($0, configuration: configuration, toolInputLimits: toolInputLimits) }
            ?? .undecided
    }

    /// The format, once known.
    public private(set) var format: StreamFormat?

    /// The error that stopped decoding (or the truncation `finish` found); nil while all is well.
    public var failure: StreamError? { detectionFailure ?? decoder.state?.failure }

    /// How many units of unknown type the dialect skipped.
    public var unknownUnitCount: Int { decoder.state?.unknownUnitCount ?? 0 }

    /// Malformed units skipped in lenient mode, in order.
    public var skippedErrors: [StreamError] { decoder.state?.skippedErrors ?? [] }

    /// Decodes the next piece of the stream into the message.
    ///
    /// - Throws: ``StreamError``, as ``MessageDecoder`` does, or when the format cannot be
    ///   detected (malformed: no format ChatStream knows, or none decided within
    ///   ``AnyStreamDecoder/maxDetectionBytes``). It is kept in ``failure``, and every later call
    ///   throws it again.
    public mutating func decode(_ bytes: UnsafeRawBufferPointer) throws {
        if let detectionFailure { throw detectionFailure }
        if try apply(Decode(bytes: bytes)) == nil { try detect(bytes, isComplete: false) }
    }

    /// Decodes the next piece of the stream into the message (`[UInt8]`, `ArraySlice`, `Data`, ...).
    @inlinable
    public mutating func decode(_ bytes: some Collection<UInt8>) throws {
        try withContiguousBytes(bytes) { try decode($0) }
    }

    /// The current choice's message as it stands (empty while the format is not yet known).
    public mutating func message() -> AssembledMessage {
        apply(Snapshot()) ?? MessageAssembler(toolInputLimits: toolInputLimits).message
    }

    /// Ends the stream and returns every choice's final message, as ``MessageDecoder/finish()``
    /// does; a stream that ended before its format was known is an error recorded in the
    /// message (truncated when it held only whitespace).
    public mutating func finish() -> [AssembledMessage] {
        if case .undecided = decoder, detectionFailure == nil {
            try? detect(UnsafeRawBufferPointer(start: nil, count: 0), isComplete: true)
        }
        return apply(Finish(error: nil)) ?? messagesWithoutDecoder()
    }

    /// Ends the stream because reading it failed below the bytes, as
    /// `MessageDecoder.finish(error:)` does.
    mutating func finish(error: StreamError) -> [AssembledMessage] {
        if let messages = apply(Finish(error: error)) { return messages }
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
        decoder = FormatDecoder(format, configuration: configuration, toolInputLimits: toolInputLimits)
        try held.withUnsafeBytes { _ = try apply(Decode(bytes: $0)) }
    }

    /// Runs `operation` on the decoder, specialised for its dialect; nil while there is none.
    private mutating func apply<Operation: MessageDecoderOperation>(
        _ operation: Operation
    ) throws(Operation.Failure) -> Operation.Result? {
        switch decoder {
        case .undecided:
            return nil
        case .uiMessageStream(var taken):
            decoder = .undecided
            defer { decoder = .uiMessageStream(taken) }
            return try operation(&taken)
        case .openAIChat(var taken):
            decoder = .undecided
            defer { decoder = .openAIChat(taken) }
            return try operation(&taken)
        case .openAIResponses(var taken):
            decoder = .undecided
            defer { decoder = .openAIResponses(taken) }
            return try operation(&taken)
        case .anthropic(var taken):
            decoder = .undecided
            defer { decoder = .anthropic(taken) }
            return try operation(&taken)
        case .aiSDKv4(var taken):
            decoder = .undecided
            defer { decoder = .aiSDKv4(taken) }
            return try operation(&taken)
        case .ndjson(var taken):
            decoder = .undecided
            defer { decoder = .ndjson(taken) }
            return try operation(&taken)
        case .jsonArray(var taken):
            decoder = .undecided
            defer { decoder = .jsonArray(taken) }
            return try operation(&taken)
        }
    }
}

extension AnyMessageDecoder {
    /// The decoder of the format: one case per format, each a specialised `MessageDecoder`.
    private enum FormatDecoder {
        /// No format yet; also the placeholder while `apply` has the decoder out.
        case undecided
        case uiMessageStream(MessageDecoder<UIMessageStreamDialect>)
        case openAIChat(MessageDecoder<OpenAIChatDialect>)
        case openAIResponses(MessageDecoder<OpenAIResponsesDialect>)
        case anthropic(MessageDecoder<AnthropicDialect>)
        case aiSDKv4(MessageDecoder<DataStreamV4Dialect>)
        case ndjson(MessageDecoder<OllamaDialect>)
        case jsonArray(MessageDecoder<GeminiDialect>)

        init(_ format: StreamFormat, configuration: StreamDecoderConfiguration, toolInputLimits: JSONConfiguration) {
            func make<Dialect: StreamDialect>() -> MessageDecoder<Dialect> {
                MessageDecoder(configuration: configuration, toolInputLimits: toolInputLimits)
            }
            switch format {
            case .uiMessageStream: self = .uiMessageStream(make())
            case .openAIChat: self = .openAIChat(make())
            case .openAIResponses: self = .openAIResponses(make())
            case .anthropic: self = .anthropic(make())
            case .aiSDKv4: self = .aiSDKv4(make())
            case .ndjson: self = .ndjson(make())
            case .jsonArray: self = .jsonArray(make())
            }
        }

        /// The decoder's failure and counters (read rarely: an existential serves).
        var state: (any MessageDecoderState)? {
            switch self {
            case .undecided: return nil
            case .uiMessageStream(let decoder): return decoder
            case .openAIChat(let decoder): return decoder
            case .openAIResponses(let decoder): return decoder
            case .anthropic(let decoder): return decoder
            case .aiSDKv4(let decoder): return decoder
            case .ndjson(let decoder): return decoder
            case .jsonArray(let decoder): return decoder
            }
        }
    }

    private struct Decode: MessageDecoderOperation {
        let bytes: UnsafeRawBufferPointer
        func callAsFunction<Dialect: StreamDialect>(_ decoder: inout MessageDecoder<Dialect>) throws(any Error) {
            try decoder.decode(bytes)
        }
    }

    private struct Snapshot: MessageDecoderOperation {
        func callAsFunction<Dialect: StreamDialect>(_ decoder: inout MessageDecoder<Dialect>) -> AssembledMessage {
            decoder.message()
        }
    }

    private struct Finish: MessageDecoderOperation {
        let error: StreamError?
        func callAsFunction<Dialect: StreamDialect>(_ decoder: inout MessageDecoder<Dialect>) -> [AssembledMessage] {
            if let error { return decoder.finish(error: error) }
            return decoder.finish()
        }
    }
}

/// One operation on a ``MessageDecoder`` of whichever dialect: a type because a closure cannot
/// be generic. `AnyMessageDecoder.apply` calls it with the concrete decoder, so it is specialised.
private protocol MessageDecoderOperation {
    associatedtype Result
    associatedtype Failure: Error
    func callAsFunction<Dialect: StreamDialect>(_ decoder: inout MessageDecoder<Dialect>) throws(Failure) -> Result
}

/// What ``AnyMessageDecoder`` reads from its decoder without a dialect-specific path.
private protocol MessageDecoderState {
    var failure: StreamError? { get }
    var unknownUnitCount: Int { get }
    var skippedErrors: [StreamError] { get }
}

extension MessageDecoder: MessageDecoderState {}
