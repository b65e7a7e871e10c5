// Peers for the other four formats, each done the way a Swift client of that format does it:
// split the bytes into its units (SSE `data:` lines, `N:` lines, NDJSON lines, the lines of
// Gemini's streamed array), then JSONDecoder into a small Codable struct of the unit's shape.
// Each returns the units decoded plus the text bytes read, as the other peers do.

import Foundation

/// An OpenAI Responses event, as a Codable client declares it.
struct ResponsesStreamEvent: Decodable {
    var type: String
    var sequenceNumber: Int
    var itemId: String?
    var outputIndex: Int?
    var contentIndex: Int?
    var delta: String?

    enum CodingKeys: String, CodingKey {
        case type, delta
        case sequenceNumber = "sequence_number"
        case itemId = "item_id"
        case outputIndex = "output_index"
        case contentIndex = "content_index"
    }
}

/// The AI SDK v4 `f:` (start step) part.
struct DataStreamV4StartStep: Decodable {
    var messageId: String
}

/// The AI SDK v4 `e:` (finish step) and `d:` (finish message) parts.
struct DataStreamV4Finish: Decodable {
    struct Usage: Decodable {
        var promptTokens: Int?
        var completionTokens: Int?
    }
    var finishReason: String
    var usage: Usage?
    var isContinued: Bool?
}

/// An Ollama `/api/chat` line, as a Codable client declares it.
struct OllamaChatChunk: Decodable {
    struct Message: Decodable {
        var role: String
        var content: String
    }
    var model: String
    var createdAt: String
    var message: Message
    var done: Bool
    var doneReason: String?
    var evalCount: Int?

    enum CodingKeys: String, CodingKey {
        case model, message, done
        case createdAt = "created_at"
        case doneReason = "done_reason"
        case evalCount = "eval_count"
    }
}

/// A Gemini `GenerateContentResponse`, as a Codable client declares it.
struct GeminiResponseChunk: Decodable {
    struct Candidate: Decodable {
        struct Content: Decodable {
            struct Part: Decodable { var text: String? }
            var parts: [Part]?
            var role: String?
        }
        var content: Content?
        var finishReason: String?
        var index: Int?
    }
    struct UsageMetadata: Decodable {
        var promptTokenCount: Int?
        var candidatesTokenCount: Int?
    }
    var candidates: [Candidate]?
    var usageMetadata: UsageMetadata?
    var modelVersion: String?
    var responseId: String?
}

extension Peers {
    /// Calls `body` with each line of `bytes` (without its LF) as a range; empty lines skipped.
    @inline(__always)
    static func forEachLine(_ bytes: [UInt8], _ body: (Range<Int>) -> Void) {
        var start = 0
        let count = bytes.count
        while start < count {
            var end = start
            while end < count && bytes[end] != 0x0A { end += 1 }
            if end > start { body(start..<end) }
            start = end + 1
        }
    }

    /// JSONDecoder per data line into ``ResponsesStreamEvent``; returns delta bytes plus event count.
    static func jsonDecoderResponses(_ bytes: [UInt8]) -> Int {
        decodeEach(ResponsesStreamEvent.self, { forEachDataLine(bytes, $0) }) {
            $0.type == "response.output_text.delta" ? $0.delta?.utf8.count ?? 0 : 0
        }
    }

    /// Each `CODE:JSON` line: the code picks the type, JSONDecoder reads the JSON after the
    /// colon (`0:` a string); returns text bytes plus parts decoded.
    static func jsonDecoderDataStreamV4(_ bytes: [UInt8]) -> Int {
        let decoder = JSONDecoder()
        var parts = 0
        var textBytes = 0
        forEachLine(bytes) { line in
            guard let colon = bytes[line].firstIndex(of: UInt8(ascii: ":")) else { return }
            let data = Data(bytes[(colon + 1)..<line.upperBound])
            // Every v4 code is one character.
            switch colon == line.lowerBound + 1 ? bytes[line.lowerBound] : 0 {
            case UInt8(ascii: "0"): textBytes += try! decoder.decode(String.self, from: data).utf8.count
            case UInt8(ascii: "f"): _ = try! decoder.decode(DataStreamV4StartStep.self, from: data)
            case UInt8(ascii: "e"), UInt8(ascii: "d"): _ = try! decoder.decode(DataStreamV4Finish.self, from: data)
            default: return
            }
            parts += 1
        }
        return parts + textBytes
    }

    /// JSONDecoder per NDJSON line into ``OllamaChatChunk``; returns content bytes plus lines.
    static func jsonDecoderOllama(_ bytes: [UInt8]) -> Int {
        decodeEach(OllamaChatChunk.self, { body in forEachLine(bytes) { body(Data(bytes[$0])) } }) {
            $0.message.content.utf8.count
        }
    }

    /// Gemini's array arrives an element per line (`[{...}\r\n,{...}\r\n,{...}]`): each line
    /// without the array's `[` `,` `]` and the CR, JSONDecoder into ``GeminiResponseChunk``;
    /// returns text bytes plus elements decoded.
    static func jsonDecoderGemini(_ bytes: [UInt8]) -> Int {
        func forEachElement(_ body: (Data) -> Void) {
            forEachLine(bytes) { line in
                var start = line.lowerBound
                var end = line.upperBound
                while start < end, bytes[start] == UInt8(ascii: "[") || bytes[start] == UInt8(ascii: ",") { start += 1 }
                while end > start, bytes[end - 1] == UInt8(ascii: "]") || bytes[end - 1] == 0x0D { end -= 1 }
                if start < end { body(Data(bytes[start..<end])) }
            }
        }
        return decodeEach(GeminiResponseChunk.self, forEachElement) {
            ($0.candidates?.first?.content?.parts ?? []).reduce(0) { $0 + ($1.text?.utf8.count ?? 0) }
        }
    }
}
