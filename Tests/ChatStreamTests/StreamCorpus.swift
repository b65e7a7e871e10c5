// StreamCorpus: one recorded or hand-written stream of every format, for tests that run a
// decoder over all of them: the home-protocol fixtures, the captures in ../shared/captures
// (read in place), and the dialect tests' own streams for the formats no capture has.
// Also the synchronous oracle those tests compare with: `MessageDecoder` of the format's dialect.

import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// A stream and the format it is in.
struct CorpusStream: Sendable, CustomTestStringConvertible {
    let name: String
    let format: StreamFormat
    let bytes: [UInt8]
    /// The network chunks it was recorded in, when the capture kept them.
    var recordedPieces: [[UInt8]]? = nil

    var testDescription: String { "\(format.rawValue) \(name)" }

    /// The format detected from the bytes: the stream's own, but for one capture that holds only
    /// an Anthropic `event: error`, which reads as the home protocol (and is decoded as that).
    var detectedFormat: StreamFormat? {
        guard case .format(let format) = bytes.withUnsafeBytes({ StreamFormat.detect(prefix: $0, isComplete: true) })
        else { return nil }
        return format
    }

    /// The stream whole, byte by byte, at random cuts with and without empty pieces, and as
    /// recorded when it was; each with its name.
    var chunkings: [(name: String, pieces: [[UInt8]])] {
        var result = Chunkings.all(of: bytes, seeds: [1]).map { ($0.name, $0.pieces) }
        if let recordedPieces { result.append(("recorded", recordedPieces)) }
        return result
    }
}

enum StreamCorpus {
    static let captures = ProjectPaths.shared + "/captures/"

    /// Every stream, every format among them.
    static let all: [CorpusStream] = {
        var streams: [CorpusStream] = []
        func files(_ folder: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                .filter { $0.hasSuffix(".sse") }.sorted()
        }
        func add(_ folder: String, _ format: (String) -> StreamFormat) {
            for file in files(folder) {
                guard let data = FileManager.default.contents(atPath: folder + "/" + file) else { continue }
                streams.append(CorpusStream(name: file, format: format(file), bytes: Array(data)))
            }
        }
        add(ProjectPaths.fixtures + "/ui-message-stream") { _ in .uiMessageStream }
        add(captures + "vercel-ai-ui-message-stream") { _ in .uiMessageStream }
        add(captures + "openai-python-chat-completions") { _ in .openAIChat }
        add(captures + "anthropic-sdk") { _ in .anthropic }
        add(captures + "vercel-ai-provider-chunks") { _ in .openAIChat }  // Anthropic's OpenAI-compatible endpoint
        add(captures + "vercel-ai-provider-chunks/sse-derived") { file in
            // Chat Completions from OpenAI and its imitators; OpenAI's other captures are Responses.
            if file.hasPrefix("anthropic__") { return .anthropic }
            if file.hasPrefix("openai__openai-text") || !file.hasPrefix("openai__") && !file.hasPrefix("azure__") {
                return .openAIChat
            }
            return .openAIResponses
        }
        for name in ["first_chunk", "midstream"] {
            let path = captures + "vercel-ai-provider-chunks/anthropic_\(name)_overloaded_error.chunks.json"
            guard let data = FileManager.default.contents(atPath: path),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let chunks = object["chunks"] as? [String]
            else { continue }
            let pieces = chunks.map { Array($0.utf8) }
            streams.append(
                CorpusStream(
                    name: "\(name)_overloaded_error", format: .anthropic, bytes: pieces.flatMap { $0 },
                    recordedPieces: pieces))
        }
        streams.append(
            CorpusStream(name: "dialect test", format: .aiSDKv4, bytes: Array(DataStreamV4DialectTests.stream.utf8)))
        streams.append(
            CorpusStream(name: "dialect test", format: .ndjson, bytes: Array(OllamaDialectTests.conversation.utf8)))
        streams.append(
            CorpusStream(name: "dialect test", format: .jsonArray, bytes: Array(GeminiDialectTests.stream.utf8)))
        return streams
    }()

    /// What a decoder made of a stream: its final messages and what it recorded.
    struct Outcome: Equatable, CustomStringConvertible {
        var messages: [AssembledMessage]
        var failure: StreamError?
        var skippedErrors: [StreamError] = []
        var unknownUnitCount = 0

        var description: String {
            "\(failure.map { "\($0)" } ?? "no failure"); " + messages.map(\.jsonValue.jsonText).joined(separator: "\n")
        }
    }

    /// `pieces` through `MessageDecoder` of the format's dialect (stopping at the first error).
    static func messageDecoder(
        _ format: StreamFormat, _ pieces: [[UInt8]], configuration: StreamDecoderConfiguration = .init()
    ) -> Outcome {
        func run<Dialect: StreamDialect>(_: Dialect.Type) -> Outcome {
            var decoder = MessageDecoder<Dialect>(configuration: configuration)
            for piece in pieces {
                do { try decoder.feed(piece) } catch { break }
            }
            let messages = decoder.finish()
            return Outcome(
                messages: messages, failure: decoder.failure, skippedErrors: decoder.skippedErrors,
                unknownUnitCount: decoder.unknownUnitCount)
        }
        switch format {
        case .uiMessageStream: return run(UIMessageStreamDialect.self)
        case .openAIChat: return run(OpenAIChatDialect.self)
        case .openAIResponses: return run(OpenAIResponsesDialect.self)
        case .anthropic: return run(AnthropicDialect.self)
        case .aiSDKv4: return run(DataStreamV4Dialect.self)
        case .ndjson: return run(OllamaDialect.self)
        case .jsonArray: return run(GeminiDialect.self)
        }
    }
}
