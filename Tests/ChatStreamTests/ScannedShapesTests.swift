// The dialects' scanned hot shapes against the general path, one suite for all seven formats:
// every recorded and hand-written stream (the corpus and the vendor fixtures) decodes, scanning
// (ChatStreamJSON's JSONScan) or with every unit through yajl (`JSONReading.tapeOnly`), to the
// same events and error, owned and lent, at every chunking; and a copy with a space after each
// colon (the same values in a shape no scan takes) to the same events. The scan itself is held to
// yajl in ChatStreamJSON (JSONScanDifferentialTests, FuzzJSON); FuzzDialects compares the two
// paths on generated streams.

import Foundation
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct ScannedShapesTests {
    static let streams: [CorpusStream] = {
        var streams = StreamCorpus.all
        let folders: [(String, StreamFormat, String)] = [
            ("ui-message-stream", .uiMessageStream, ".sse"), ("openai-chat", .openAIChat, ".sse"),
            ("openai-responses", .openAIResponses, ".sse"), ("anthropic", .anthropic, ".sse"),
            ("ai-sdk-v4", .aiSDKv4, ".txt"), ("ndjson", .ndjson, ".ndjson"), ("json-array", .jsonArray, ".json"),
        ]
        for (folder, format, suffix) in folders {
            let directory = ProjectPaths.fixtures + "/vendor-streams/" + folder
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
            for file in files where file.hasSuffix(suffix) && !file.hasSuffix(".expected.json") {
                guard let data = FileManager.default.contents(atPath: directory + "/" + file) else { continue }
                streams.append(CorpusStream(name: file, format: format, bytes: Array(data)))
            }
        }
        return streams
    }()

    @Test func everyScannedFormatHasStreams() {
        for format in [StreamFormat.uiMessageStream, .openAIChat, .openAIResponses, .anthropic, .aiSDKv4, .jsonArray] {
            #expect(Self.streams.filter { $0.format == format }.count >= 3, "\(format)")
        }
    }

    @Test(arguments: streams)
    func streamDecodesAsTheGeneralPath(stream: CorpusStream) {
        func check<D: StreamDialect>(_ dialect: D.Type, spaced: Bool?) {
            let general = ScannedShapesTesting.expectSameAsGeneralPath(dialect, stream.bytes, "\(stream.name)")
            guard let sse = spaced else { return }
            // The spaced copy is read only the general way: the same events (an error's offset moves).
            let copy = ScannedShapesTesting.decode(dialect, [ScannedShapesTesting.spacedCopy(stream.bytes, sse: sse)])
            #expect(copy.events == general.events, "\(stream.name)")
            #expect(copy.error?.kind == general.error?.kind, "\(stream.name)")
        }
        switch stream.format {
        case .uiMessageStream: check(UIMessageStreamDialect.self, spaced: true)
        case .openAIChat: check(OpenAIChatDialect.self, spaced: true)
        case .openAIResponses: check(OpenAIResponsesDialect.self, spaced: true)
        case .anthropic: check(AnthropicDialect.self, spaced: true)
        case .aiSDKv4: check(DataStreamV4Dialect.self, spaced: nil)
        case .ndjson: check(OllamaDialect.self, spaced: false)
        case .jsonArray: check(GeminiDialect.self, spaced: false)
        }
    }
}
