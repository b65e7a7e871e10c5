// FuzzDialects: each dialect decoder through StreamDecoder and MessageAssembler.
//
// Options byte: bits 0-2 pick the dialect (modulo the number listed in `dialects`), bit 3 turns
// on lenient mode, bit 4 selects small JSON limits. Invariants:
// - the same events, skipped errors and final error whole and chunked;
// - the same again from the general path alone (`json.reading = .tapeOnly`) on the whole input: the
//   scans of the hot shapes (JSONScan) never change what a stream decodes to;
// - a failed decoder keeps throwing the same error;
// - per choice, the assembled text, reasoning and refusal equal the concatenation of their
//   deltas, and no more text comes out than bytes went in;
// - every tool-call part belongs to an ID some event named;
// - MessageDecoder, fed the chunked input, gives the same messages, error and skipped errors
//   as the whole input's events through MessageAssembler;
// - bit 5: AnyMessageDecoder for the dialect's format, fed the chunked input, gives what
//   MessageDecoder gives;
// - bit 6: AnyMessageDecoder detecting the format, fed the chunked input, detects the format
//   AnyStreamDecoder detects on the whole input and gives the messages, error and skipped errors
//   of its events through MessageAssembler;
// - bit 7: `feed(_:into:)` with a sink, fed the chunked input, hands the whole input's events
//   (each made owned), error and skipped errors, no text delta comes owned to the sink, and the
//   dialect hands none to its event sink (OwnedTextCheck);
// - one finish per message: per choice, within a message (up to `.done` or the next `.messageStart`),
//   at most one `.finish`
//   and no content (text, reasoning, refusal, tool input, file, source) after it; and for the
//   dialects that make their own part IDs (OpenAI Chat, Ollama, Gemini), no two text parts of a
//   message side by side when the stream carried no error.

import ChatStream
import FuzzSupport

struct Outcome: Equatable {
    var events: [StreamEvent] = []
    var skipped: [StreamError] = []
    var error: StreamError?
}

func decode<Dialect: StreamDialect>(
    _ type: Dialect.Type, _ pieces: [ArraySlice<UInt8>], _ configuration: StreamDecoderConfiguration
) -> Outcome {
    var decoder = StreamDecoder<Dialect>(configuration: configuration)
    var outcome = Outcome()
    do {
        for piece in pieces { try decoder.feed(piece, into: &outcome.events) }
        try decoder.finish(into: &outcome.events)
    } catch let error as StreamError {
        outcome.error = error
        do {
            _ = try decoder.feed([UInt8]("data: [DONE]\n\n".utf8))
            check(false, "decoder accepted input after failing with \(error)")
        } catch let again as StreamError {
            check(again == error, "a failed decoder threw a different error: \(again) after \(error)")
        } catch {
            check(false, "unexpected error type \(error)")
        }
    } catch {
        check(false, "unexpected error type \(error)")
    }
    outcome.skipped = decoder.skippedErrors
    return outcome
}

/// Each event a sink is handed, made owned; a text delta handed owned through `event(_:)` fails
/// the run.
struct LentEvents: StreamEventSink {
    var events: [StreamEvent] = []

    mutating func textDelta(id: String, delta: CheckedUTF8) {
        events.append(.textDelta(id: id, delta: delta.string))
    }

    mutating func event(_ event: StreamEvent) {
        if case .textDelta = event { check(false, "a text delta came owned to the sink") }
        events.append(event)
    }
}

/// `pieces` through the sink form, each event made owned where it came; checks that every text
/// delta the sink is handed comes lent, and that the dialect handed none over owned.
func feedLent<Dialect: StreamDialect>(
    _ type: Dialect.Type, _ pieces: [ArraySlice<UInt8>], _ configuration: StreamDecoderConfiguration
) -> Outcome {
    var decoder = StreamDecoder<OwnedTextCheck<Dialect>>(configuration: configuration)
    var outcome = Outcome()
    var sink = LentEvents()
    do {
        for piece in pieces { try decoder.feed(piece, into: &sink) }
        try decoder.finish(into: &sink)
    } catch let error as StreamError {
        outcome.error = error
    } catch {
        check(false, "unexpected error type \(error)")
    }
    outcome.events = sink.events
    outcome.skipped = decoder.skippedErrors
    return outcome
}

/// Checks the assembled messages of `outcome` and returns them.
func checkAssembly(_ outcome: Outcome, inputBytes: Int) -> [AssembledMessage] {
    var assembler = MessageAssembler()
    var text: [Int: String] = [:]
    var reasoning: [Int: String] = [:]
    var refusal: [Int: String] = [:]
    var toolIDs: Set<String> = []
    var choice = 0
    var deltaBytes = 0
    for event in outcome.events {
        switch event {
        case .choice(let index): choice = index
        case .textDelta(_, let delta):
            text[choice, default: ""] += delta
            deltaBytes += delta.utf8.count
        case .reasoningDelta(_, let delta):
            reasoning[choice, default: ""] += delta
            deltaBytes += delta.utf8.count
        case .refusalDelta(_, let delta):
            refusal[choice, default: ""] += delta
            deltaBytes += delta.utf8.count
        case .toolCallStart(let id, _, _), .toolInputDelta(let id, _), .toolInputAvailable(let id, _, _),
            .toolInputError(let id, _, _):
            toolIDs.insert(id)
        default: break
        }
        assembler.apply(event)
        _ = assembler.message
    }
    check(deltaBytes <= inputBytes, "\(deltaBytes) bytes of deltas from \(inputBytes) bytes of input")
    checkOneFinish(outcome.events)
    let messages = assembler.finish(error: outcome.error)
    for message in messages {
        let joined = { (pick: (AssembledPart) -> String?) in message.parts.compactMap(pick).joined() }
        check(message.text == text[message.choice, default: ""], "assembled text differs from the text deltas")
        check(
            joined { if case .reasoning(let t) = $0 { t } else { nil } } == reasoning[message.choice, default: ""],
            "assembled reasoning differs from the reasoning deltas")
        check(
            joined { if case .refusal(let t) = $0 { t } else { nil } } == refusal[message.choice, default: ""],
            "assembled refusal differs from the refusal deltas")
        for call in message.toolCalls {
            check(toolIDs.contains(call.toolCallId), "tool call \(call.toolCallId) no event named")
        }
        check(message.isFinished, "finish left a message unfinished")
        if outcome.error != nil { check(message.error != nil, "an error was not recorded on the message") }
    }
    return messages
}

/// Per choice and message (a `.done` ends one), at most one `.finish`, and no content after it.
func checkOneFinish(_ events: [StreamEvent]) {
    var choice = 0
    var finished: Set<Int> = []
    for event in events {
        switch event {
        case .choice(let index): choice = index
        case .finish:
            check(!finished.contains(choice), "a second finish for choice \(choice) in one message")
            finished.insert(choice)
        case .done, .messageStart:
            finished = []
            choice = 0
        case .textStart, .textDelta, .reasoningStart, .reasoningDelta, .refusalDelta, .toolCallStart, .toolInputDelta,
            .toolInputAvailable, .toolInputError, .file, .source:
            check(!finished.contains(choice), "content for choice \(choice) after its finish: \(event)")
        default: break
        }
    }
}

/// No two text parts side by side in a message (for dialects that make their own part IDs).
func checkAdjacentTextIsOnePart(_ messages: [AssembledMessage], _ events: [StreamEvent]) {
    guard !events.contains(where: { if case .error = $0 { true } else { false } }) else { return }
    for message in messages {
        for (left, right) in zip(message.parts, message.parts.dropFirst()) {
            if case .text = left, case .text = right { check(false, "adjacent text parts in \(message.parts)") }
        }
    }
}

/// What a decoder made of a whole stream: the final messages, the error, the skipped errors and
/// the format.
struct Decoded: Equatable {
    var messages: [AssembledMessage]
    var failure: StreamError?
    var skipped: [StreamError]
    var format: StreamFormat?
}

/// The decoders that go from bytes straight to final messages.
protocol FinalMessageDecoding {
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws
    mutating func finish() -> [AssembledMessage]
    var failure: StreamError? { get }
    var skippedErrors: [StreamError] { get }
}

extension MessageDecoder: FinalMessageDecoding {}
extension AnyMessageDecoder: FinalMessageDecoding {}

/// `pieces` through `decoder`; a throw must be the error the decoder keeps.
func finalMessages<Decoder: FinalMessageDecoding>(_ decoder: inout Decoder, _ pieces: [ArraySlice<UInt8>]) -> Decoded {
    do {
        try forEachPiece(pieces) { bytes in try decoder.feed(bytes) }
    } catch {
        check(
            error as? StreamError == decoder.failure,
            "\(Decoder.self) threw \(error) but kept \(String(describing: decoder.failure))")
    }
    let messages = decoder.finish()
    return Decoded(messages: messages, failure: decoder.failure, skipped: decoder.skippedErrors, format: nil)
}

/// The stream through `AnyStreamDecoder` detecting its format, event by event into `MessageAssembler`.
func detectedEventByEvent(_ pieces: [ArraySlice<UInt8>], _ configuration: StreamDecoderConfiguration) -> Decoded {
    var decoder = AnyStreamDecoder(format: nil, configuration: configuration)
    var assembler = MessageAssembler()
    var failure: StreamError?
    do {
        for piece in pieces { try decoder.feed(piece, into: &assembler) }
        try decoder.finish(into: &assembler)
    } catch let error as StreamError {
        failure = error
    } catch {
        check(false, "unexpected error type \(error)")
    }
    return Decoded(
        messages: assembler.finish(error: failure), failure: failure, skipped: decoder.skippedErrors,
        format: decoder.format)
}

func run<Dialect: StreamDialect>(_ type: Dialect.Type, _ input: FuzzInput) {
    var configuration = StreamDecoderConfiguration(lenient: input.bit(3))
    if input.bit(4) { configuration.json = JSONConfiguration(maxDepth: 6, maxValueBytes: 200, maxStringBytes: 64) }
    let payload = input.payload
    let whole = decode(type, [payload[...]], configuration)
    let chunked = decode(type, input.pieces, configuration)
    check(whole == chunked, "\(Dialect.self): whole and chunked differ:\n\(whole)\n\(chunked)")
    var generalOnly = configuration
    generalOnly.json.reading = .tapeOnly
    let general = decode(type, [payload[...]], generalOnly)
    check(general == whole, "\(Dialect.self): the general path alone differs:\n\(general)\n\(whole)")
    if !configuration.lenient { check(whole.skipped.isEmpty, "skipped errors without lenient mode") }
    let messages = checkAssembly(whole, inputBytes: payload.count)
    if type == OpenAIChatDialect.self || type == OllamaDialect.self || type == GeminiDialect.self {
        checkAdjacentTextIsOnePart(messages, whole.events)
    }
    let expected = Decoded(messages: messages, failure: whole.error, skipped: whole.skipped, format: nil)
    var decoder = MessageDecoder<Dialect>(configuration: configuration)
    let decoded = finalMessages(&decoder, input.pieces)
    check(decoded == expected, "\(Dialect.self): MessageDecoder differs:\n\(decoded)\n\(expected)")
    if input.bit(7) {
        let lent = feedLent(type, input.pieces, configuration)
        check(lent == whole, "\(Dialect.self): the lent sink differs:\n\(lent)\n\(whole)")
    }
    if input.bit(5) {
        guard let format = formats[ObjectIdentifier(type)] else { return check(false, "no format for \(Dialect.self)") }
        var any = AnyMessageDecoder(format: format, configuration: configuration)
        var decoded = finalMessages(&any, input.pieces)
        decoded.format = any.format
        var given = expected
        given.format = format
        check(decoded == given, "AnyMessageDecoder(\(format)) differs:\n\(decoded)\n\(given)")
    }
    if input.bit(6) {
        var any = AnyMessageDecoder(format: nil, configuration: configuration)
        var detected = finalMessages(&any, input.pieces)
        detected.format = any.format
        let expected = detectedEventByEvent([payload[...]], configuration)
        check(detected == expected, "AnyMessageDecoder detecting differs:\n\(detected)\n\(expected)")
    }
}

/// The format of each dialect, for `AnyMessageDecoder`.
let formats: [ObjectIdentifier: StreamFormat] = [
    ObjectIdentifier(UIMessageStreamDialect.self): .uiMessageStream,
    ObjectIdentifier(OpenAIChatDialect.self): .openAIChat,
    ObjectIdentifier(OpenAIResponsesDialect.self): .openAIResponses,
    ObjectIdentifier(AnthropicDialect.self): .anthropic,
    ObjectIdentifier(DataStreamV4Dialect.self): .aiSDKv4,
    ObjectIdentifier(OllamaDialect.self): .ndjson,
    ObjectIdentifier(GeminiDialect.self): .jsonArray,
]

/// Every dialect on this branch; add new ones here (the options byte picks one).
let dialects: [@Sendable (FuzzInput) -> Void] = [
    { run(UIMessageStreamDialect.self, $0) },  // 0
    { run(OpenAIChatDialect.self, $0) },  // 1
    { run(OpenAIResponsesDialect.self, $0) },  // 2
    { run(AnthropicDialect.self, $0) },  // 3
    { run(DataStreamV4Dialect.self, $0) },  // 4
    { run(OllamaDialect.self, $0) },  // 5
    { run(GeminiDialect.self, $0) },  // 6
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    dialects[Int(input.options & 7) % dialects.count](input)
    return 0
}
