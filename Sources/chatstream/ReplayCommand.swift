// `chatstream replay`: decode a recorded stream and print what it holds.
//
// The contract other tools rely on:
//   chatstream replay [--format auto|ui-message-stream|openai-chat|openai-responses|anthropic|ai-sdk-v4|ndjson|json-array]
//                     [--chunk-size N] [--output message|events|text|none] [--json] FILE|-
// Output is byte-identical for every --chunk-size. Exit 0 for a complete stream; 1 when it
// carried an error or was truncated (the message is still printed); 2 for usage errors; 65 for
// malformed input (what was decoded before it is still printed).
//
// `--output message` and `--output none` decode through AnyMessageDecoder, straight to the final
// messages (no event and no String per text delta); `events` and `text` decode event by event.
// Both give the same messages (tested against each other for every format), so the contract holds
// for every mode.

import ChatStream

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum ReplayCommand {
    enum OutputMode: String { case message, events, text, none }

    static let command = Command(
        "replay", operands: "FILE|-",
        flags: [
            .value("format", "auto|" + StreamFormat.allCases.map(\.rawValue).joined(separator: "|")),
            .value("chunk-size", "N"), .value("output", "message|events|text|none"), .json, .switch("lenient"),
        ],
        summary: "decode a recorded stream and print what it holds",
        run: run)

    @Sendable static func run(_ parsed: ArgumentParser) throws -> Int32 {
        guard parsed.positional.count == 1 else {
            throw ArgumentParser.UsageError(message: "replay needs exactly one FILE (or - for standard input)")
        }
        var format: StreamFormat? = nil
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
        let json = parsed.has("json")
        guard let input = readAll(parsed.positional[0]) else {
            Output.standardError("error: cannot read \(parsed.positional[0])\n")
            return 66
        }
        return replay(
            input, format: format, chunkSize: chunkSize, mode: mode, json: json, lenient: parsed.has("lenient"))
    }

    /// What a replay decoded: every choice's final message, the malformed events skipped
    /// (`--lenient`), and the error that stopped it.
    struct Decoded {
        var messages: [AssembledMessage]
        var skippedErrors: [StreamError]
        var failure: StreamError?
    }

    static func replay(
        _ input: [UInt8], format: StreamFormat?, chunkSize: Int, mode: OutputMode, json: Bool, lenient: Bool
    ) -> Int32 {
        let configuration = StreamDecoderConfiguration(lenient: lenient)
        let decoded: Decoded
        if mode == .message || mode == .none {
            decoded = decodeMessages(input, format: format, chunkSize: chunkSize, configuration: configuration)
            for message in decoded.messages where mode == .message {
                if json {
                    Output.standardOutput(message.jsonValue.jsonText + "\n")
                } else {
                    Output.standardOutput(render(message))
                }
            }
        } else {
            decoded = decodeEvents(
                input, format: format, chunkSize: chunkSize, configuration: configuration, mode: mode, json: json)
        }
        for error in decoded.skippedErrors {
            Output.standardError("warning: skipped malformed event: \(error)\n")
        }
        if let failure = decoded.failure {
            Output.standardError("error: \(failure)\n")
            return failure.kind == .truncated || failure.kind == .remote ? 1 : 65
        }
        if let error = decoded.messages.compactMap(\.error).first {
            Output.standardError(
                "error: the stream carried an error: \(error.code.map { "\($0): " } ?? "")\(error.message)\n")
            return 1
        }
        return 0
    }

    /// `--output message` and `none`: the bytes, in `chunkSize` pieces, straight to the final messages
    /// through `AnyMessageDecoder` (no event and no `String` per text delta); the messages equal
    /// those of the event path, and decoding stops at the first error, as there.
    static func decodeMessages(
        _ input: [UInt8], format: StreamFormat?, chunkSize: Int, configuration: StreamDecoderConfiguration
    ) -> Decoded {
        var decoder = AnyMessageDecoder(format: format, configuration: configuration)
        input.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + chunkSize)
                do {
                    try decoder.decode(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                } catch {
                    return  // kept in decoder.failure
                }
                start = end
            }
        }
        let messages = decoder.finish()
        return Decoded(messages: messages, skippedErrors: decoder.skippedErrors, failure: decoder.failure)
    }

    /// `events` and `text`: event by event, each event printed as it is decoded (`events`, `text`)
    /// and assembled (the exit status follows the messages).
    static func decodeEvents(
        _ input: [UInt8], format: StreamFormat?, chunkSize: Int, configuration: StreamDecoderConfiguration,
        mode: OutputMode, json: Bool
    ) -> Decoded {
        var decoder = AnyStreamDecoder(format: format, configuration: configuration)
        var assembler = MessageAssembler()
        var failure: StreamError? = nil
        func handle(_ event: StreamEvent) {
            assembler.apply(event)
            switch mode {
            case .events:
                if json {
                    Output.standardOutput(event.jsonValue.jsonText + "\n")
                } else {
                    Output.standardOutput(describe(event) + "\n")
                }
            case .text:
                if case .textDelta(_, let delta) = event { Output.standardOutput(delta) }
            case .message, .none:
                break
            }
        }
        do {
            try input.withUnsafeBytes { all in
                var start = 0
                while start < all.count {
                    let end = min(all.count, start + chunkSize)
                    try decoder.decode(UnsafeRawBufferPointer(rebasing: all[start..<end]), emit: handle)
                    if mode == .text { Output.flush() }
                    start = end
                }
            }
            try decoder.finish(emit: handle)
        } catch {
            failure = StreamError(converting: error)
        }
        let messages = assembler.finish(error: failure)
        if mode == .text { Output.standardOutput("\n") }
        return Decoded(messages: messages, skippedErrors: decoder.skippedErrors, failure: failure)
    }

    static func readAll(_ path: String) -> [UInt8]? {
        let file: UnsafeMutablePointer<FILE>? = path == "-" ? Output.input : fopen(path, "rb")
        guard let file else { return nil }
        defer { if path != "-" { fclose(file) } }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
            if count < buffer.count {
                if ferror(file) != 0 { return nil }
                break
            }
        }
        return bytes
    }

    /// A readable one-line form of an event.
    static func describe(_ event: StreamEvent) -> String {
        let value = event.jsonValue
        let type = value["type"]?.stringValue ?? "event"
        var rest = value.objectValue ?? JSONObject()
        rest["type"] = nil
        return rest.isEmpty ? type : type + " " + JSONTree.object(rest).jsonText
    }

    /// A readable form of an assembled message.
    static func render(_ message: AssembledMessage) -> String {
        var lines: [String] = []
        if message.choice > 0 || message.id != nil {
            lines.append("message \(message.id ?? "-") (choice \(message.choice))")
        }
        if let id = message.conversationId { lines.append("conversation \(id)") }
        for part in message.parts {
            switch part {
            case .text(let text): lines.append(text)
            case .reasoning(let text): lines.append("[reasoning] " + text)
            case .refusal(let text): lines.append("[refusal] " + text)
            case .toolCall(let call):
                lines.append("[tool call \(call.toolCallId)] \(call.toolName)(\(call.input.jsonText))")
            case .toolResult(let result): lines.append("[tool result \(result.toolCallId)] \(result.output.jsonText)")
            default: lines.append("[\(part.jsonValue["type"]?.stringValue ?? "part")] \(part.jsonValue.jsonText)")
            }
        }
        lines.append(
            "finish: \(message.finishReason?.rawValue ?? "none")"
                + (message.rawFinishReason.map { " (\($0))" } ?? "")
                + (message.usage.map { ", usage \($0.jsonText)" } ?? ""))
        if let error = message.error { lines.append("error: \(error.code.map { "\($0): " } ?? "")\(error.message)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
