// Peers: how other Swift clients decode the same streams. They split the bytes into lines,
// take each `data:` line, and hand it to Foundation's JSONDecoder (into a Codable struct of the
// chunk's shape) or JSONSerialization.

import ChatStream
import Foundation

/// The UI message stream chunk, as a Codable client declares it.
struct UIChunk: Decodable {
    var type: String
    var id: String?
    var delta: String?
    var messageId: String?
    var finishReason: String?
    var toolCallId: String?
    var inputTextDelta: String?
}

/// The OpenAI Chat Completions chunk, as a Codable client declares it.
struct OpenAIChatChunk: Decodable {
    struct Choice: Decodable {
        struct Delta: Decodable {
            var content: String?
            var role: String?
        }
        var index: Int
        var delta: Delta
        var finishReason: String?

        enum CodingKeys: String, CodingKey {
            case index, delta
            case finishReason = "finish_reason"
        }
    }
    var id: String
    var object: String
    var choices: [Choice]
}

/// The Anthropic Messages event, as a Codable client declares it (`message_delta`'s delta has
/// no `type`, so it is optional here).
struct AnthropicStreamEvent: Decodable {
    struct Delta: Decodable {
        var type: String?
        var text: String?
    }
    var type: String
    var index: Int?
    var delta: Delta?
}

/// A history page, as a Codable client declares it.
struct HistoryPage: Decodable {
    struct Message: Decodable {
        struct Part: Decodable {
            var type: String
            var text: String?
            var toolCallId: String?
            var toolName: String?
            var input: JSONTree?
            var output: JSONTree?
        }
        struct Metadata: Decodable { var score: Double? }
        var id: String
        var role: String
        var parts: [Part]
        var createdAt: Int
        var feedback: String?
        var metadata: Metadata?
    }
    struct Pagination: Decodable {
        var cursor: String?
        var hasMore: Bool
        var total: Int
    }
    var data: [Message]
    var pagination: Pagination
}

enum Peers {
    /// Calls `body` with each `data:` line's value (not `[DONE]`) as Data, found by a line split.
    @inline(__always)
    static func forEachDataLine(_ bytes: [UInt8], _ body: (Data) -> Void) {
        let prefix = Array("data: ".utf8)
        var start = 0
        let count = bytes.count
        while start < count {
            var end = start
            while end < count && bytes[end] != 0x0A { end += 1 }
            if end - start > prefix.count, bytes[start..<start + prefix.count].elementsEqual(prefix),
                !(end - start == 12 && bytes[start + 6] == UInt8(ascii: "["))
            {
                body(Data(bytes[(start + prefix.count)..<end]))
            }
            start = end + 1
        }
    }

    /// JSONDecoder into `T` on each unit `forEachUnit` finds; returns the units decoded plus the
    /// text bytes `text` reads from each (what every peer returns).
    @inline(__always)
    static func decodeEach<T: Decodable>(
        _ type: T.Type, _ forEachUnit: ((Data) -> Void) -> Void, text: @escaping (T) -> Int
    ) -> Int {
        let decoder = JSONDecoder()
        var units = 0
        var textBytes = 0
        forEachUnit { data in
            textBytes += text(try! decoder.decode(T.self, from: data))
            units += 1
        }
        return units + textBytes
    }

    /// JSONDecoder per data line into ``UIChunk``; returns delta bytes plus chunk count.
    static func jsonDecoder(_ bytes: [UInt8]) -> Int {
        decodeEach(UIChunk.self, { forEachDataLine(bytes, $0) }) {
            $0.type == "text-delta" ? $0.delta?.utf8.count ?? 0 : 0
        }
    }

    /// JSONDecoder per data line into ``OpenAIChatChunk``; returns content bytes plus chunk count.
    static func jsonDecoderOpenAIChat(_ bytes: [UInt8]) -> Int {
        decodeEach(OpenAIChatChunk.self, { forEachDataLine(bytes, $0) }) {
            $0.choices.reduce(0) { $0 + ($1.delta.content?.utf8.count ?? 0) }
        }
    }

    /// JSONDecoder per data line into ``AnthropicStreamEvent``; returns text bytes plus event count.
    static func jsonDecoderAnthropic(_ bytes: [UInt8]) -> Int {
        decodeEach(AnthropicStreamEvent.self, { forEachDataLine(bytes, $0) }) {
            $0.type == "content_block_delta" ? $0.delta?.text?.utf8.count ?? 0 : 0
        }
    }

    /// JSONSerialization per data line; returns the chunk count.
    static func jsonSerialization(_ bytes: [UInt8]) -> Int {
        var chunks = 0
        forEachDataLine(bytes) { data in
            let object = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
            if object["type"] != nil { chunks += 1 }
        }
        return chunks
    }

    /// A history page through JSONDecoder; returns the number of messages.
    static func historyPage(_ bytes: [UInt8]) -> Int {
        try! JSONDecoder().decode(HistoryPage.self, from: Data(bytes)).data.count
    }
}
