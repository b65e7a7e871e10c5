// StringLimits: the UTF-8 byte limits of the user-supplied strings the server stores, searches
// with or looks up (every body member, header and token claim a client chooses), checked before
// anything is stored; the limits table of the LimitsAndSecurity article lists them all, and a
// test reads that table and checks each one, so the two cannot drift. Grapheme counts (a tag's 64
// characters) are checked in addition, never instead: one grapheme cluster can hold any number of
// combining marks, so a count of characters bounds nothing in bytes.

import ChatStream

/// The byte limits of user-supplied strings (documented in the server's limits table).
enum StringLimits {
    /// A conversation title, given or derived from the first message: 1,024 bytes.
    static let titleBytes = 1_024
    /// One tag: 256 bytes (and 1...64 characters).
    static let tagBytes = 256
    /// The search text `q` of the conversation list: 256 bytes.
    static let searchBytes = 256
    /// A chat `message`: 1 MiB (a longer text would hold the store's write lock too long).
    static let messageBytes = 1 << 20
    /// An ID a client names (`conversationId`, `messageId`, `toolCallId`): 128 bytes.
    static let idBytes = 128
    /// `X-Device-Id`: 128 bytes.
    static let deviceIdBytes = 128
    /// A user token (`X-User-Token`, `/verify`'s `token`): 8 KiB.
    static let tokenBytes = 8 << 10
    /// A user token's subject `sub` (the user ID): 256 bytes.
    static let subjectBytes = 256
    /// A tool result's `output`, as JSON: 256 KiB.
    static let toolOutputBytes = 256 << 10
    /// How deeply a tool result's `output` may nest (arrays and objects): 64, so the message that
    /// stores it stays well inside what the store's JSON reader reads back.
    static let toolOutputDepth = 64

    /// The byte limit of each string member of a request body, by its key.
    static let bodyMembers: [String: Int] = [
        "title": titleBytes, "message": messageBytes, "conversationId": idBytes, "messageId": idBytes,
        "toolCallId": idBytes, "token": tokenBytes,
    ]

    /// How deeply `value` nests: 0 for a scalar, 1 for an array or object of scalars.
    static func depth(of value: JSONTree) -> Int {
        var deepest = 0
        var pending: [(JSONTree, Int)] = [(value, 1)]
        while let (node, level) = pending.popLast() {
            if let array = node.arrayValue {
                deepest = max(deepest, level)
                for element in array { pending.append((element, level + 1)) }
            } else if let object = node.objectValue {
                deepest = max(deepest, level)
                for (_, element) in object { pending.append((element, level + 1)) }
            }
        }
        return deepest
    }

    /// Throws 400 `VALIDATION_TOO_LONG` naming `field` when `value`'s JSON is longer than
    /// `maxBytes`, or 400 `VALIDATION_TOO_DEEP` when it nests deeper than `maxDepth`.
    static func check(json value: JSONTree, field: String, maxBytes: Int, maxDepth: Int) throws(APIError) {
        let depth = depth(of: value)
        guard depth <= maxDepth else {
            throw APIError(
                status: 400, code: "VALIDATION_TOO_DEEP",
                message: "\(field) nests \(depth) levels deep; at most \(maxDepth) are allowed",
                details: ["field": field])
        }
        let count = value.jsonText.utf8.count
        guard count <= maxBytes else {
            throw APIError(
                status: 400, code: "VALIDATION_TOO_LONG",
                message: "\(field) is \(count) bytes of JSON; at most \(maxBytes) are allowed",
                details: ["field": field])
        }
    }

    /// Throws 400 `VALIDATION_TOO_LONG` naming `field` when `text` is longer than `maxBytes` of UTF-8.
    static func check(_ text: String, field: String, maxBytes: Int) throws(APIError) {
        let count = text.utf8.count
        guard count <= maxBytes else {
            throw APIError(
                status: 400, code: "VALIDATION_TOO_LONG",
                message: "\(field) is \(count) bytes of UTF-8; at most \(maxBytes) are allowed",
                details: ["field": field])
        }
    }

    /// The longest prefix of `text` of at most `maxBytes` bytes of UTF-8, cut between characters
    /// (or, when the first character alone is longer, between Unicode scalars).
    static func prefix(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var bytes = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            bytes += text.utf8.distance(from: index, to: next)
            guard bytes <= maxBytes else { break }
            end = next
        }
        if end > text.startIndex { return String(text[..<end]) }
        var scalars = String.UnicodeScalarView()
        bytes = 0
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= maxBytes else { break }
            scalars.append(scalar)
        }
        return String(scalars)
    }
}
