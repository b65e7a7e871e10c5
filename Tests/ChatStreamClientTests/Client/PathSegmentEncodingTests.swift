// The client's percent-encoding of a path segment (an agent ID, a conversation ID, a message ID in
// a request's URL) gives what Foundation's `addingPercentEncoding(withAllowedCharacters:)` gives
// for `CharacterSet.urlPathAllowed` less `/;?#`, the set it used before: every ASCII character
// alone, and mixed text with non-ASCII, reserved and already-encoded characters.

import Foundation
import Testing

@testable import ChatStreamClient

@Suite("Path segment encoding")
struct PathSegmentEncodingTests {
    static let foundationSet: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/;?#")
        return set
    }()

    static func foundation(_ text: String) -> String? {
        text.addingPercentEncoding(withAllowedCharacters: foundationSet)
    }

    @Test func everyASCIICharacterIsEncodedAsFoundationEncodesIt() {
        for value in UInt8(0)...UInt8(127) {
            let text = String(decoding: [value], as: UTF8.self)
            #expect(ChatbaseClient.percentEncodedPathSegment(text) == Self.foundation(text), "byte \(value)")
        }
    }

    @Test(arguments: [
        "", "agent-1", "A1B2C3D4-E5F6-4789-8ABC-DEF012345678", "héllo wörld", "a/b;c?d#e", "100%", "%41",
        "👋🏽 emoji", "Ω≈ç√", "tab\there", "line\nbreak", "quote\"s and <angles>", "[brackets]{braces}|^`\\",
        "e\u{301}", "\u{0}nul",
    ])
    func textIsEncodedAsFoundationEncodesIt(_ text: String) {
        #expect(ChatbaseClient.percentEncodedPathSegment(text) == Self.foundation(text))
    }
}
