import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// A provider's JSON error answer where a stream was expected: a remote error with the provider's
/// code and message, in every format, whatever the chunking, and detected by `--format auto`.
@Suite(.blockingAllowed) struct APIErrorBodyTests {
    static let gemini = """
        {
          "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT"
          }
        }

        """
    static let openAI =
        #"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#
    static let anthropic = #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
    static let ollama = #"{"error":"model \"llama9\" not found, try pulling it first"}"#

    static let bodies: [(body: String, code: String?, message: String)] = [
        (gemini, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."),
        (openAI, "invalid_api_key", "Incorrect API key provided"),
        (anthropic, "overloaded_error", "Overloaded"),
        (ollama, nil, #"model "llama9" not found, try pulling it first"#),
    ]

    /// The events of `pieces` in `format`, and the error that ended them.
    static func events(_ pieces: [[UInt8]], format: StreamFormat?) -> (events: [StreamEvent], error: StreamError?) {
        var decoder = AnyStreamDecoder(format: format)
        var events: [StreamEvent] = []
        do {
            for piece in pieces { try decoder.feed(piece, into: &events) }
            try decoder.finish(into: &events)
        } catch {
            return (events, StreamError(converting: error))
        }
        return (events, nil)
    }

    @Test func everyErrorBodyIsOneRemoteErrorInEveryFormatAtEveryChunking() {
        for (body, code, message) in Self.bodies {
            let bytes = Array(body.utf8)
            for format in StreamFormat.allCases + [nil] {
                for chunking in Chunkings.all(of: bytes, seeds: [1]) {
                    let result = Self.events(chunking.pieces, format: format)
                    #expect(result.error == nil, "\(format.map(\.rawValue) ?? "auto") \(chunking): \(body)")
                    #expect(
                        result.events == [.error(StreamErrorInfo(code: code, message: message))],
                        "\(format.map(\.rawValue) ?? "auto") \(chunking): \(body)")
                }
            }
        }
    }

    @Test func aJSONObjectThatIsNoErrorIsMalformedSayingWhatTheBodyIs() {
        for format in [StreamFormat.openAIChat, .jsonArray, .anthropic] {
            let result = Self.events([Array(#"{"choices":[]}"#.utf8)], format: format)
            #expect(result.error?.kind == .malformed, "\(format)")
            #expect(result.error?.message.contains("one JSON object") == true, "\(format)")
            #expect(result.error?.message.contains("not a \(format.rawValue) stream") == true, "\(format)")
            let broken = Self.events([Array("{\n  \"error\": {".utf8)], format: format)
            #expect(broken.error?.kind == .malformed, "\(format)")
            // The format's name, never a Swift type's: a wrapping dialect gives the same message.
            #expect(broken.error?.message.contains("not a \(format.rawValue) stream") == true, "\(format)")
            #expect(broken.error?.message.contains("Dialect") == false, "\(format)")
        }
    }

    @Test func aBodyBeyondTheValueLimitIsALimitError() {
        var configuration = StreamDecoderConfiguration()
        configuration.json.maxValueBytes = 64
        var decoder = StreamDecoder<OpenAIChatDialect>(configuration: configuration)
        let body = Array(("{\"error\":{\"message\":\"" + String(repeating: "x", count: 100) + "\"}}").utf8)
        #expect(throws: StreamError.self) {
            _ = try decoder.feed(body)
        }
    }

    @Test func streamsThatStartWithAnObjectLineStillDecodeAsNDJSON() {
        let line = #"{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop"}"# + "\n"
        let result = Self.events([Array(line.utf8)], format: .ndjson)
        #expect(result.error == nil)
        #expect(result.events.contains(.textDelta(id: "text-0", delta: "hi")))
    }

    @Test func theReaderNamesEachProvidersCode() throws {
        #expect(APIErrorBody.info(try JSONTree(parsing: #"{"error":{"code":429,"message":"m"}}"#))?.code == "429")
        #expect(APIErrorBody.info(try JSONTree(parsing: #"{"error":{"type":"t","message":"m"}}"#))?.code == "t")
        #expect(APIErrorBody.info(try JSONTree(parsing: #"{"errors":[]}"#)) == nil)
        #expect(APIErrorBody.info(try JSONTree(parsing: #"[{"error":"x"}]"#)) == nil)
    }
}
