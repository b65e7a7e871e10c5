// Response bodies read with the project's yajl layer: JSONParser field cursors over a tape, no
// JSONDecoder. Lenient where the protocol asks it (unknown part types, unknown statuses,
// messages with no parts) and strict about the fields a page cannot do without.

import ChatStream
import ChatStreamJSON
import Foundation

/// One page of the wire envelope `{"data":[...], "pagination":{cursor, hasMore, total}}`.
struct WirePage<Item> {
    var items: [Item]
    var cursor: String?
    var hasMore: Bool
    var total: Int?
}

enum WireDecoding {
    static func failure(_ message: String) -> ChatError { ErrorMapping.decoding(message) }

    /// Parses `bytes` and hands the root to `body`; JSON errors become ``ChatError/decodingFailed(_:)`` naming the byte offset.
    static func parse<R>(_ bytes: [UInt8], _ body: (JSONElement) throws -> R) throws -> R {
        do {
            return try JSONParser().parse(bytes, body)
        } catch let error as JSONError {
            throw ErrorMapping.decoding(error.message, byteOffset: error.byteOffset)
        }
    }

    /// Decodes a JSONTree (from a Codable decoder) through the same cursor code.
    static func decodeValue<R>(_ value: JSONTree, _ decode: (JSONElement) throws -> R) throws -> R {
        try parse(value.jsonBytes, decode)
    }

    static func date(_ element: JSONElement?, _ field: String) throws -> Date {
        guard let seconds = element?.double else { throw failure("\(field) is not a number") }
        return Date(timeIntervalSince1970: seconds)
    }

    static func conversation(_ element: JSONElement) throws -> Conversation {
        guard element.kind == .object else { throw failure("a conversation is not an object") }
        guard let id = element["id"]?.string else { throw failure("a conversation has no id") }
        var tags: [String]? = nil
        if let list = element["tags"], list.kind == .array {
            var collected: [String] = []
            list.forEachElement { if let tag = $0.string { collected.append(tag) } }
            tags = collected
        }
        var last: Message? = nil
        if let value = element["lastMessage"], value.kind == .object { last = try? message(value) }
        return Conversation(
            id: id, title: element["title"]?.string, createdAt: try date(element["createdAt"], "createdAt"),
            updatedAt: try date(element["updatedAt"] ?? element["createdAt"], "updatedAt"),
            userId: element["userId"]?.string, wireStatus: element["status"]?.string, tags: tags,
            unreadCount: element["unreadCount"]?.int, lastMessage: last)
    }

    /// A history message; nil when it has no parts (such messages are skipped), unless it is a
    /// reply a server restart interrupted (`metadata.interrupted`). A missing or
    /// non-numeric `createdAt` reads as the current time. Its text joins the text parts with a
    /// newline, as the SDK does.
    static func message(_ element: JSONElement) throws -> Message? {
        guard element.kind == .object else { throw failure("a message is not an object") }
        guard let id = element["id"]?.string else { throw failure("a message has no id") }
        var parts: [AssembledPart] = []
        element["parts"]?.forEachElement { parts.append(AssembledPart(json: $0.jsonValue)) }
        let interrupted = element["metadata"]?["interrupted"]?.bool == true
        // An interrupted reply is kept even empty (cut before its first part): it shows failed.
        guard !parts.isEmpty || interrupted else { return nil }
        let role = element["role"]?.string ?? "assistant"
        // A message without a usable date is dated now rather than failing its page.
        let date = element["createdAt"]?.double.map(Date.init(timeIntervalSince1970:)) ?? Date()
        var message = Message(
            id: id, sender: role == "user" ? .user : .agent, date: date,
            feedback: element["feedback"]?.string.flatMap(MessageFeedback.init(rawValue:)),
            score: element["metadata"]?["score"]?.double, assembledParts: parts)
        message.clientMessageId = element["clientMessageId"]?.string
        message.isInterrupted = interrupted
        return message
    }

    static func page<Item>(_ bytes: [UInt8], item: (JSONElement) throws -> Item?) throws -> WirePage<Item> {
        try parse(bytes) { root in
            guard let data = root["data"], data.kind == .array else { throw failure("the page has no data array") }
            var items: [Item] = []
            try data.forEachElement { if let value = try item($0) { items.append(value) } }
            let pagination = root["pagination"]
            let cursor = pagination?["cursor"]?.string
            let hasMore = pagination?["hasMore"]?.bool ?? (cursor != nil)
            return WirePage(items: items, cursor: cursor, hasMore: hasMore, total: pagination?["total"]?.int)
        }
    }

    /// `{"data": conversation}`.
    static func conversationEnvelope(_ bytes: [UInt8]) throws -> Conversation {
        try parse(bytes) { root in
            guard let data = root["data"] else { throw failure("the answer has no data") }
            return try conversation(data)
        }
    }

    /// `{"error":{code,message,details}}`; nil when the body is not that shape.
    static func errorBody(_ bytes: [UInt8]) -> (code: String, message: String, details: [String: String])? {
        try? JSONParser().parse(bytes) { root -> (String, String, [String: String])? in
            guard let error = root["error"], error.kind == .object else { return nil }
            var details: [String: String] = [:]
            error["details"]?.forEachMember { key, value in
                if let key = key.string { details[key] = value.string ?? value.jsonValue.jsonText }
            }
            return (error["code"]?.string ?? "UNKNOWN", error["message"]?.string ?? "", details)
        }
    }

    /// The non-streaming chat answer `{"data":{"id","role","parts","metadata":{...}}}` as an assembled message.
    static func chatMessage(_ bytes: [UInt8]) throws -> AssembledMessage {
        try parse(bytes) { root in
            guard let data = root["data"], data.kind == .object else { throw failure("the answer has no data") }
            var message = AssembledMessage(isFinished: true)
            message.id = data["id"]?.string
            // Gathered first and set once: `parts` is computed, so an append through it copies them.
            var parts: [AssembledPart] = []
            data["parts"]?.forEachElement { parts.append(AssembledPart(json: $0.jsonValue)) }
            message.parts = parts
            if let metadata = data["metadata"], metadata.kind == .object {
                message.metadata = metadata.jsonValue
                message.conversationId = metadata["conversationId"]?.string
                message.userMessageId = metadata["userMessageId"]?.string
                if message.id == nil { message.id = metadata["messageId"]?.string }
                if let raw = metadata["finishReason"]?.string {
                    message.rawFinishReason = raw
                    message.finishReason = StreamFinishReason(normalizing: raw)
                }
                if let usage = metadata["usage"], !usage.isNull { message.usage = usage.jsonValue }
            }
            return message
        }
    }
}
