// PayloadFile: `--write-payload FORMAT PATH` writes one of the bench's 1 MB text replies (or, for
// tool-ui, tool-openai and tool-anthropic, the 200,000 one-byte tool deltas of `--simdjson`) to a
// file, byte for byte what the bench decodes, so tools outside the bench (`chatstream replay`, a peer
// library built elsewhere) can be measured on the same bytes. See BENCHMARKS.md, "Peer:
// swift-openapi-runtime".

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum PayloadFile {
    /// The payloads by `chatstream replay --format` name, each the 1 MB reply the bench's rows and
    /// `--profile FORMAT-*` paths use (same generator, same seed).
    static let formats: [(name: String, make: @Sendable () -> (payload: StreamPayload, textBytes: Int))] = [
        ("ui-message-stream", { text(Payloads.homeTextDeltas(targetBytes: 1_000_000)) }),
        ("openai-chat", { text(Payloads.openAIChatChunks(targetBytes: 1_000_000)) }),
        ("anthropic", { text(Payloads.anthropicEvents(targetBytes: 1_000_000)) }),
        ("openai-responses", { text(Payloads.responsesEvents(targetBytes: 1_000_000)) }),
        ("ai-sdk-v4", { text(Payloads.dataStreamV4Parts(targetBytes: 1_000_000)) }),
        ("ndjson", { text(Payloads.ollamaLines(targetBytes: 1_000_000)) }),
        ("json-array", { text(Payloads.geminiArray(targetBytes: 1_000_000)) }),
        ("tool-ui", { tool(.uiMessageStream) }),
        ("tool-openai", { tool(.openAIChat) }),
        ("tool-anthropic", { tool(.anthropic) }),
    ]

    static func text(_ payload: StreamPayload) -> (payload: StreamPayload, textBytes: Int) {
        (payload, payload.expectedText.utf8.count)
    }

    static func tool(_ format: Payloads.ToolFormat) -> (payload: StreamPayload, textBytes: Int) {
        let (payload, input) = Payloads.toolInputStream(inputBytes: 200_000, format: format)
        return (payload, input.utf8.count)
    }

    /// Writes the payload of `format` to `path` and prints one line: format, bytes, text-delta
    /// events, and the UTF-8 bytes of the text it assembles to (what a reader of the file must
    /// count; for a tool payload, its tool input). Returns the exit status: 0, 2 for an unknown format, 1 when the file cannot be written.
    static func write(format: String, path: String) -> Int32 {
        guard let make = formats.first(where: { $0.name == format })?.make else {
            print("chatstream-bench: unknown payload format \(format) (\(formats.map(\.name).joined(separator: ", ")))")
            return 2
        }
        let (payload, textBytes) = make()
        guard let file = fopen(path, "wb") else {
            print("chatstream-bench: cannot open \(path): \(String(cString: strerror(errno)))")
            return 1
        }
        let written = payload.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == payload.bytes.count, closed == 0 else {
            print("chatstream-bench: cannot write \(path): \(String(cString: strerror(errno)))")
            return 1
        }
        print(
            "\(format): \(payload.bytes.count) bytes, \(payload.textDeltaCount) text deltas, "
                + "\(textBytes) text bytes -> \(path)")
        return 0
    }
}
