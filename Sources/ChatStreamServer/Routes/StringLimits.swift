// StringLimits: the UTF-8 byte limits of the user-supplied strings the server stores or searches
// with, checked before anything is stored. Grapheme counts (a tag's 64 characters) are checked in
// addition, never instead: one grapheme cluster can hold any number of combining marks, so a count
// of characters bounds nothing in bytes.

/// The byte limits of user-supplied strings (documented in the server's limits table).
enum StringLimits {
    /// A conversation title, given or derived from the first message: 1,024 bytes.
    static let titleBytes = 1_024
    /// One tag: 256 bytes (and 1...64 characters).
    static let tagBytes = 256
    /// The search text `q` of the conversation list: 256 bytes.
    static let searchBytes = 256

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
