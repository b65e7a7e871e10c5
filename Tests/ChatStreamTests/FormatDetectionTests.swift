import Foundation
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct FormatDetectionTests {
    static func detect(_ text: String, complete: Bool = true) -> StreamFormat.Detection {
        Array(text.utf8).withUnsafeBytes { StreamFormat.detect(prefix: $0, isComplete: complete) }
    }

    @Test func firstBytesDecideTheFormat() {
        #expect(Self.detect("data: {\"type\":\"start\"}\n\n") == .format(.uiMessageStream))
        #expect(
            Self.detect("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[]}\n\n")
                == .format(.openAIChat))
        #expect(Self.detect("event: response.created\ndata: {}\n\n") == .format(.openAIResponses))
        #expect(Self.detect("data: {\"type\":\"response.created\"}\n\n") == .format(.openAIResponses))
        #expect(Self.detect("event: message_start\ndata: {}\n\n") == .format(.anthropic))
        #expect(Self.detect("data: {\"type\": \"message_start\", \"message\": {}}\n\n") == .format(.anthropic))
        #expect(Self.detect("0:\"Hello\"\n") == .format(.aiSDKv4))
        #expect(Self.detect("f:{\"messageId\":\"m\"}\n") == .format(.aiSDKv4))
        #expect(Self.detect("{\"message\":{}}\n") == .format(.ndjson))
        #expect(Self.detect("  [{\"candidates\":[]}") == .format(.jsonArray))
        #expect(Self.detect("hello world\n") == .unknown)
    }

    @Test(arguments: [
        // `event:` names, with and without the space.
        ("event:response.output_text.delta\n", StreamFormat.Detection.format(.openAIResponses)),
        ("event: content_block_start\n", .format(.anthropic)), ("event: ping\n", .format(.anthropic)),
        ("event: message_delta\n", .format(.anthropic)), ("event: content_block_delta\n", .format(.anthropic)),
        ("event: pings\n", .format(.uiMessageStream)),
        ("event: message\ndata: {\"type\":\"ping\"}\n", .format(.anthropic)),
        // `data:` values, their spaces ignored.
        ("data: [DONE]\n", .format(.uiMessageStream)), ("data:[ DONE ]\n", .format(.uiMessageStream)),
        ("data: {\"choices\" : []}\n", .format(.openAIChat)), ("data: {\"error\": {}}\n", .format(.openAIChat)),
        ("data: {\"type\": \"response.created\"}\n", .format(.openAIResponses)),
        ("data: {\"type\":\"content_block_start\"}\n", .format(.anthropic)),
        ("data: {\"type\":\"content_block_delta\"}\n", .format(.anthropic)),
        ("data: {\"type\":\"message_delta\"}\n", .format(.anthropic)),
        ("data: {\"type\":\"text-delta\"}\n", .format(.uiMessageStream)),
        ("data: {\"x\":1}\n", .format(.uiMessageStream)), ("data: é\n", .format(.uiMessageStream)),
        // Only the first 4,096 bytes of a line are read.
        ("data: {\"p\":\"" + String(repeating: "x", count: 4096) + "\",\"choices\":[]}\n", .format(.uiMessageStream)),
        // v4 codes: one or two ASCII letters or digits before the colon.
        ("2:[{}]\n", .format(.aiSDKv4)), ("ab:{}\n", .format(.aiSDKv4)), ("abc:{}\n", .unknown),
        ("-:{}\n", .unknown), ("é:{}\n", .unknown),
    ])
    func eachLineRuleDecides(_ stream: String, _ expected: StreamFormat.Detection) {
        #expect(Self.detect(stream) == expected, "\(stream.prefix(60).debugDescription)")
    }

    @Test func undecidedUntilALineIsComplete() {
        #expect(Self.detect("data: {\"type\":\"sta", complete: false) == .needMoreBytes)
        #expect(Self.detect(": comment\n", complete: false) == .needMoreBytes)
        #expect(Self.detect("", complete: false) == .needMoreBytes)
    }

    @Test func detectionFedPieceByPieceDecidesAsTheWholePrefix() {
        // The detector goes on from where the last piece left it, so it must reach the whole
        // prefix's answer however the bytes are cut: a byte-order mark, CR LF and the first
        // byte split across pieces, comments before the decisive line, undecided streams.
        let bom = "\u{FEFF}"
        let streams = [
            "data: {\"type\":\"start\"}\n\n", bom + "data: {\"type\":\"start\"}\n\n",
            bom + "  \r\n\t[{\"candidates\":[]}]", "\r\n \n{\"message\":{}}\n",
            ": keep-alive\r\n: again\r\n\r\nevent: message_start\r\ndata: {}\r\n\r\n",
            "id: 7\nretry: 10\n\ndata: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[]}\n\n",
            "0:\"Hello\"\n", bom + "f:{\"messageId\":\"m\"}\r\n", "hello world\n", ": only a comment\n",
            "  \n\r\n", bom, "\u{FE}x", ": a comment without its end",
        ]
        for stream in streams {
            let bytes = Array(stream.utf8)
            for complete in [false, true] {
                let whole = bytes.withUnsafeBytes { StreamFormat.detect(prefix: $0, isComplete: complete) }
                for pieceSize in [1, 2, 3, 5] {
                    var progress = StreamFormat.DetectionProgress()
                    var answer = StreamFormat.Detection.needMoreBytes
                    var end = 0
                    while end < bytes.count, answer == .needMoreBytes {
                        end = min(end + pieceSize, bytes.count)
                        let last = end == bytes.count && complete
                        answer = bytes[..<end].withUnsafeBytes {
                            StreamFormat.detect(prefix: $0, isComplete: last, resuming: &progress)
                        }
                    }
                    #expect(
                        answer == whole, "\(stream.debugDescription) in pieces of \(pieceSize), complete: \(complete)")
                }
            }
        }
    }

    @Test func headersDecideWhenTheyCan() {
        #expect(StreamFormat.detect(headers: [("X-Vercel-AI-UI-Message-Stream", "v1")]) == .uiMessageStream)
        #expect(StreamFormat.detect(headers: [("x-vercel-ai-data-stream", "v1")]) == .aiSDKv4)
        #expect(StreamFormat.detect(headers: [("Content-Type", "application/x-ndjson")]) == .ndjson)
        #expect(StreamFormat.detect(headers: [("Content-Type", "text/event-stream")]) == nil)
    }

    /// Every SSE capture in ../shared is detected as the format of its folder, at every chunking.
    @Test(arguments: [
        ("anthropic-sdk", StreamFormat.anthropic),
        ("openai-python-chat-completions", .openAIChat),
        ("vercel-ai-ui-message-stream", .uiMessageStream),
    ])
    func capturesAreDetected(_ folder: String, _ format: StreamFormat) throws {
        let directory = ProjectPaths.shared + "/captures/" + folder
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sse") }
        #expect(!files.isEmpty)
        for file in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))
            for chunking in Chunkings.all(of: Array(bytes.prefix(4096)), seeds: [5]) {
                var decoder = AnyStreamDecoder(format: nil)
                for piece in chunking.pieces {
                    _ = try? decoder.feed(piece)
                }
                #expect(decoder.format == format, "\(file) \(chunking)")
            }
        }
    }
}
