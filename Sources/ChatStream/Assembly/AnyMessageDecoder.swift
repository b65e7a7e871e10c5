// AnyMessageDecoder: a MessageDecoder for a format chosen at run time, or detected from the
// stream's first bytes.
//
// `MessageDecoder` is generic over its dialect so that the hot path is specialised for it. Held
// as an existential (`any`, the way `AnyStreamDecoder` holds its decoder) it would run the
// unspecialised generic code, which looks generic metadata up for every unit (measured on the
// CLI's 8 MB home stream: 12% more instructions than the typed decoder). So the decoder sits in
// one optional per format (at most one set), and each operation is a small type with a generic
// method that `apply` calls with the concrete decoder: a few nil checks per call (per chunk),
// then exactly the code `MessageDecoder<SomeDialect>` runs. Optionals rather than an enum with
// payloads: a decoder in an optional is mutated in place, where an enum's payload would be
// copied out and back on every call (StreamDecoder keeps its framers so for the same reason).

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
import ChatStreamFraming

public struct AnyMessageDecoder {
    /// The options for the stream.
    public let configuration: StreamDecoderConfiguration
    private let toolInputLimits: JSONConfiguration
    /// The decoder of the format, once known.
    private var decoder = FormatDecoder()
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
        if let format { decoder.start(format, configuration: configuration, toolInputLimits: toolInputLimits) }
    }

    /// The format, once known.
    public private(set) var format: StreamFormat?

    /// The error that stopped decoding (or the truncation `finish` found); nil while all is well.
    public var failure: StreamError? { detectionFailure ?? decoder.state?.failure }

    /// How many units of unknown type the dialect skipped.
    public var unknownUnitCount: Int { decoder.state?.unknownUnitCount ?? 0 }

    /// Malformed units skipped in lenient mode, in order.
    public var skippedErrors: [StreamError] { decoder.state?.skippedErrors ?? [] }

    /// Feeds the next piece of the stream: its events go into the message (nothing is returned;
    /// read ``message()`` or ``finish()``).
    ///
    /// - Throws: ``StreamError``, as ``MessageDecoder`` does, or when the format cannot be
    ///   detected (malformed: no format ChatStream knows, or none decided within
    ///   ``AnyStreamDecoder/maxDetectionBytes``). It is kept in ``failure``, and every later call
    ///   throws it again.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws {
        if let detectionFailure { throw detectionFailure }
        if try apply(Decode(bytes: bytes)) == nil { try detect(bytes, isComplete: false) }
    }

    /// Feeds the next piece of the stream (`[UInt8]`, `ArraySlice`, `Data`, ...), as the raw-buffer form does.
    @inlinable
    public mutating func feed(_ bytes: some Collection<UInt8>) throws {
        try withContiguousBytes(bytes) { try feed($0) }
    }

    /// The current choice's message as it stands (empty while the format is not yet known).
    public mutating func message() -> AssembledMessage {
        apply(Snapshot()) ?? MessageAssembler(toolInputLimits: toolInputLimits).message
    }

    /// Ends the stream and returns every choice's final message, as ``MessageDecoder/finish()``
    /// does; a stream that ended before its format was known is an error recorded in the
    /// message (truncated when it held only whitespace).
    public mutating func finish() -> [AssembledMessage] {
        if format == nil, detectionFailure == nil {
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
        decoder.start(format, configuration: configuration, toolInputLimits: toolInputLimits)
        try held.withUnsafeBytes { _ = try apply(Decode(bytes: $0)) }
    }

    /// Runs `operation` on the decoder, specialised for its dialect; nil while there is none.
    private mutating func apply<Operation: MessageDecoderOperation>(
        _ operation: Operation
    ) throws(Operation.Failure) -> Operation.Result? {
        try decoder.apply(operation)
    }
}

extension AnyMessageDecoder {
    /// The decoder of the format: one optional per format, at most one set (none while the
    /// format is not known), each a specialised `MessageDecoder` mutated in place.
    private struct FormatDecoder {
        var uiMessageStream: MessageDecoder<UIMessageStreamDialect>?
        var openAIChat: MessageDecoder<OpenAIChatDialect>?
        var openAIResponses: MessageDecoder<OpenAIResponsesDialect>?
        var anthropic: MessageDecoder<AnthropicDialect>?
        var aiSDKv4: MessageDecoder<DataStreamV4Dialect>?
        var ndjson: MessageDecoder<OllamaDialect>?
        var jsonArray: MessageDecoder<GeminiDialect>?

        /// Makes the decoder of `format`.
        mutating func start(
            _ format: StreamFormat, configuration: StreamDecoderConfiguration, toolInputLimits: JSONConfiguration
        ) {
            func make<Dialect: StreamDialect>() -> MessageDecoder<Dialect> {
                MessageDecoder(configuration: configuration, toolInputLimits: toolInputLimits)
            }
            switch format {
            case .uiMessageStream: uiMessageStream = make()
            case .openAIChat: openAIChat = make()
            case .openAIResponses: openAIResponses = make()
            case .anthropic: anthropic = make()
            case .aiSDKv4: aiSDKv4 = make()
            case .ndjson: ndjson = make()
            case .jsonArray: jsonArray = make()
            }
        }

        /// Runs `operation` on the decoder in place; nil while there is none.
        mutating func apply<Operation: MessageDecoderOperation>(
            _ operation: Operation
        ) throws(Operation.Failure) -> Operation.Result? {
            if uiMessageStream != nil { return try operation(&uiMessageStream!) }
            if openAIChat != nil { return try operation(&openAIChat!) }
            if anthropic != nil { return try operation(&anthropic!) }
            if openAIResponses != nil { return try operation(&openAIResponses!) }
            if aiSDKv4 != nil { return try operation(&aiSDKv4!) }
            if ndjson != nil { return try operation(&ndjson!) }
            if jsonArray != nil { return try operation(&jsonArray!) }
            return nil
        }

        /// The decoder's failure and counters (read rarely: an existential serves).
        var state: (any MessageDecoderState)? {
            if let uiMessageStream { return uiMessageStream }
            if let openAIChat { return openAIChat }
            if let anthropic { return anthropic }
            if let openAIResponses { return openAIResponses }
            if let aiSDKv4 { return aiSDKv4 }
            if let ndjson { return ndjson }
            if let jsonArray { return jsonArray }
            return nil
        }
    }

    private struct Decode: MessageDecoderOperation {
        let bytes: UnsafeRawBufferPointer
        func callAsFunction<Dialect: StreamDialect>(_ decoder: inout MessageDecoder<Dialect>) throws(any Error) {
            try decoder.feed(bytes)
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
