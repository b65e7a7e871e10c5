// PageCursor: the opaque `cursor` of conversation and message pages.
//
// A cursor names which list it pages (conversations or messages), the scope (the conversation of
// a message list), the anchor (the sequence number of the last item handed out; the next page
// starts past it, so items added meanwhile do not shift pages), and the filters of the first
// request. A cursor sent with different filters or to a different list is rejected rather than
// silently paging something else.
//
// The anchor is a number of the store-wide sequence, which would tell an outsider how busy the
// server is, so the cursor is sealed: base64url of `nonce (8) | payload ^ keystream | tag (16)`,
// where the keystream is HMAC-SHA256(key, "cursor-stream" | nonce | block counter), the tag the
// first 16 bytes of HMAC-SHA256(key, "cursor-tag" | nonce | payload), and the key the store's own
// secret (kept in the database, so cursors outlive a restart). A cursor that was not made by this
// store, or was changed, fails its tag and is answered as malformed.

import ChatStream

/// The position and filters a page continues from.
struct PageCursor: Sendable, Equatable {
    var kind: String
    var scope: String
    var anchor: Int
    var filters: String

    /// The opaque text sent to clients, sealed with `key`.
    func encoded(key: [UInt8]) -> String {
        let payload: JSONTree = [
            "k": .string(kind), "s": .string(scope), "a": .number(JSONNumber(anchor)), "f": .string(filters),
        ]
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let plain = payload.jsonBytes
        let tag = Self.tag(nonce: nonce, payload: plain, key: key)
        return Base64URL.encode(nonce + Self.masked(plain, nonce: nonce, key: key) + tag)
    }

    /// Opens `text` with `key` and checks it belongs to this list with these filters.
    static func decode(
        _ text: String, kind: String, scope: String, filters: String, key: [UInt8]
    ) throws(APIError) -> PageCursor {
        let malformed = APIError.validation("VALIDATION_INVALID_CURSOR", "the cursor is malformed")
        guard let sealed = Base64URL.decode(text), sealed.count > 8 + 16 else { throw malformed }
        let nonce = Array(sealed[..<8])
        let plain = masked(Array(sealed[8..<(sealed.count - 16)]), nonce: nonce, key: key)
        guard HMACSHA256.equalInConstantTime(Array(sealed.suffix(16)), tag(nonce: nonce, payload: plain, key: key)),
            let value = try? JSONTree(parsing: plain),
            let decodedKind = value["k"]?.stringValue, let decodedScope = value["s"]?.stringValue,
            let anchor = value["a"]?.intValue, let decodedFilters = value["f"]?.stringValue
        else { throw malformed }
        guard decodedKind == kind, decodedScope == scope else {
            throw APIError.validation("VALIDATION_INVALID_CURSOR", "the cursor belongs to another list")
        }
        guard decodedFilters == filters else {
            throw APIError.validation(
                "VALIDATION_CURSOR_MISMATCH",
                "the cursor was made with other filters; repeat the first request's filters")
        }
        return PageCursor(kind: kind, scope: scope, anchor: anchor, filters: filters)
    }

    private static func tag(nonce: [UInt8], payload: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(HMACSHA256.authenticationCode(for: Array("cursor-tag".utf8) + nonce + payload, key: key).prefix(16))
    }

    /// `bytes` XORed with the keystream of `nonce` (the same call seals and opens).
    private static func masked(_ bytes: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8] {
        var out = bytes
        var block: UInt8 = 0
        var offset = 0
        while offset < out.count {
            let stream = HMACSHA256.authenticationCode(for: Array("cursor-stream".utf8) + nonce + [block], key: key)
            for index in 0..<min(32, out.count - offset) { out[offset + index] ^= stream[index] }
            offset += 32
            block &+= 1
        }
        return out
    }
}
