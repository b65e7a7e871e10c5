// `chatstream replay`: decode a recorded (or live, piped) stream and print what it holds.
//
// The contract other tools rely on (flags in `command` below):
// Output is byte-identical for every --chunk-size. Exit 0 for a complete stream; 1 when it
// carried an error or was truncated (the message is still printed); 2 for usage errors; 65 for
// malformed input (what was decoded before it is still printed); 66 when the input cannot be read.
//
// It streams: the input is read in pieces (ReplayInput), each piece is decoded as it comes, in
// pieces of at most --chunk-size bytes, and what it yields is written and flushed before the next
// read, so `curl -N ... | chatstream replay --output text -` shows the text as it arrives. Memory
// is bounded by the stream's largest unit and the decoder's limits, never by the input's size:
// `events`, `text` and `none` keep no message (the exit status follows CarriedErrors); `message`
// keeps the message it prints, not the input.
//
// `--output message` decodes through AnyMessageDecoder, straight to the final messages (no event
// and no String per text delta); the other modes decode event by event through AnyStreamDecoder.
// Both give the same messages and the same errors (tested against each other for every format),
// so the contract holds for every mode.

import ChatStream

enum ReplayCommand {
    enum OutputMode: String { case message, events, text, none }

    static let command = Command(
        "replay", operands: "FILE|-",
        flags: [
            .value(
                "format",
                StreamFormat.allCases.reduce("auto") { $0 + "|" + $1.rawValue }
                    + "|salesforce-messaging|live-events"),
            .value("chunk-size", "N"), .value("output", "message|events|text|none"), .json, .switch("lenient"),
        ],
        summary: "decode a recorded stream (a file, or - for standard input, read as it comes) and print what it holds",
        synchronous: run)

    /// What a replay asks for.
    struct Options {
        var format: StreamFormat?
        var chunkSize: Int
        var mode: OutputMode
        var json: Bool
        var configuration: StreamDecoderConfiguration
    }

    @Sendable static func run(_ parsed: ArgumentParser) throws -> Int32 {
        guard parsed.positional.count == 1 else {
            throw ArgumentParser.UsageError(message: "replay needs exactly one FILE (or - for standard input)")
        }
        var format: StreamFormat? = nil
        if let live = liveFormat(parsed.value("format")) {
            var input: ReplayInput
            do {
                input = try ReplayInput(path: parsed.positional[0])
            } catch {
                Output.standardError("error: \(error)\n")
                return 66
            }
            return replayLive(&input, format: live, json: parsed.has("json"))
        }
        if let name = parsed.value("format"), name != "auto" {
            guard let known = StreamFormat(rawValue: name) else {
                throw ArgumentParser.UsageError(message: "unknown format \"\(name)\"")
            }
            format = known
        }
        let chunkSize = parsed.value("chunk-size").map { Int($0) ?? 0 } ?? 65536
        guard chunkSize > 0 else { throw ArgumentParser.UsageError(message: "--chunk-size needs a positive integer") }
        guard let mode = OutputMode(rawValue: parsed.value("output") ?? "message") else {
            throw ArgumentParser.UsageError(message: "--output must be message, events, text or none")
        }
        let options = Options(
            format: format, chunkSize: chunkSize, mode: mode, json: parsed.has("json"),
            configuration: StreamDecoderConfiguration(lenient: parsed.has("lenient")))
        var input: ReplayInput
        do {
            input = try ReplayInput(path: parsed.positional[0])
        } catch {
            Output.standardError("error: \(error)\n")
            return 66
        }
        return replay(&input, options)
    }

    /// What a replay decoded: the malformed events skipped (`--lenient`), the error that stopped
    /// it, and the first error a message carried.
    struct Outcome {
        var skippedErrors: [StreamError]
        var failure: StreamError?
        var carriedError: StreamErrorInfo?
        var readError: ReplayInput.ReadError?
    }

    static func replay(_ input: inout ReplayInput, _ options: Options) -> Int32 {
        let outcome =
            options.mode == .message ? decodeMessages(&input, options) : decodeEvents(&input, options)
        for error in outcome.skippedErrors {
            Output.standardError("warning: skipped malformed event: \(error)\n")
        }
        if let readError = outcome.readError {
            Output.standardError("error: \(readError)\n")
            return 66
        }
        if let failure = outcome.failure {
            Output.standardError("error: \(failure)\n")
            return failure.kind == .truncated || failure.kind == .remote ? 1 : 65
        }
        if let error = outcome.carriedError {
            Output.standardError(
                "error: the stream carried an error: \(error.code.map { "\($0): " } ?? "")\(error.message)\n")
            return 1
        }
        return 0
    }

    /// Hands each piece of `input`, as it is read, to `decode` in pieces of at most `chunkSize`
    /// bytes, flushing what they printed before the next read; stops at the first error `decode`
    /// throws (returned) or at a read error (recorded in `readError`).
    static func decodePieces(
        _ input: inout ReplayInput, chunkSize: Int, readError: inout ReplayInput.ReadError?,
        _ decode: (UnsafeRawBufferPointer) throws -> Void
    ) -> (any Error)? {
        var stop: (any Error)? = nil
        do {
            try input.forEachPiece { piece in
                var start = 0
                while start < piece.count {
                    let end = min(piece.count, start + chunkSize)
                    do {
                        try decode(UnsafeRawBufferPointer(rebasing: piece[start..<end]))
                    } catch {
                        stop = error
                        return false
                    }
                    start = end
                }
                Output.flush()
                return true
            }
        } catch let error as ReplayInput.ReadError {
            readError = error
        } catch {
            readError = ReplayInput.ReadError(path: input.path, reason: "\(error)")
        }
        return stop
    }

    /// `--output message`: straight to the final messages through `AnyMessageDecoder` (no event
    /// and no `String` per text delta), printed at the end; decoding stops at the first error.
    static func decodeMessages(_ input: inout ReplayInput, _ options: Options) -> Outcome {
        var decoder = AnyMessageDecoder(format: options.format, configuration: options.configuration)
        var readError: ReplayInput.ReadError? = nil
        _ = decodePieces(&input, chunkSize: options.chunkSize, readError: &readError) { piece in
            try decoder.feed(piece)  // an error is kept in decoder.failure
        }
        let messages = decoder.finish()
        for message in messages {
            if options.json {
                // In pieces: a long reply's text is not copied into its JSON text to be printed.
                var writer = PiecewiseJSONWriter { Output.standardOutput(bytes: $0) }
                writer.append(message.jsonValue)
                writer.append(bytes: [UInt8(ascii: "\n")])
                writer.flush()
            } else {
                render(message, to: Output.standardOutput)
            }
        }
        return Outcome(
            skippedErrors: decoder.skippedErrors, failure: decoder.failure,
            carriedError: messages.compactMap(\.error).first, readError: readError)
    }

    /// `events`, `text` and `none`: event by event, each event printed as it is decoded and
    /// flushed with its piece; the exit status follows the errors the events carry.
    static func decodeEvents(_ input: inout ReplayInput, _ options: Options) -> Outcome {
        var decoder = AnyStreamDecoder(format: options.format, configuration: options.configuration)
        var carried = CarriedErrors()
        var choices = ChoiceTexts()
        let mode = options.mode
        let json = options.json
        func handle(_ event: StreamEvent) {
            carried.apply(event)
            switch mode {
            case .events:
                Output.standardOutput((json ? event.jsonValue.jsonText : describe(event)) + "\n")
            case .text:
                if let live = choices.apply(event) { Output.standardOutput(live) }
            case .message, .none:
                break
            }
        }
        // The events a piece completes, each handled even when a later one in the piece failed.
        var events: [StreamEvent] = []
        func handleEvents() {
            for event in events { handle(event) }
            events.removeAll(keepingCapacity: true)
        }
        var readError: ReplayInput.ReadError? = nil
        var stop = decodePieces(&input, chunkSize: options.chunkSize, readError: &readError) { piece in
            defer { handleEvents() }
            try decoder.feed(piece, into: &events)
        }
        if stop == nil, readError == nil {
            do {
                defer { handleEvents() }
                try decoder.finish(into: &events)
            } catch {
                stop = error
            }
        }
        if mode == .text {
            Output.standardOutput("\n")
            for (choice, text) in choices.held { Output.standardOutput("\n[choice \(choice)]\n" + text + "\n") }
        }
        return Outcome(
            skippedErrors: decoder.skippedErrors, failure: stop.map(StreamError.init(converting:)),
            carriedError: carried.first, readError: readError)
    }
}
