// Byte limits on user-supplied strings (issue 31, deliverable 2): a title, a tag and the search
// text are refused by their UTF-8 size before anything is stored, whatever their grapheme count,
// and a title derived from a first message is cut to the title limit.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("String byte limits", .blockingAllowed)
struct StringLimitsTests {
    /// One letter carrying `marks` combining acute accents: a single Character of 1 + 2*marks bytes.
    static func letter(withMarks marks: Int) -> String {
        "a" + String(repeating: "\u{0301}", count: marks)
    }

    static func body(_ members: [(String, JSONTree)]) -> String { JSONTree.object(JSONObject(members)).jsonText }

    @Test func aTagOfOneCharacterWithCombiningMarksIsRefusedAndNothingIsStored() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("tag me")
        let heavy = Self.letter(withMarks: 100_000)
        #expect(heavy.count == 1)
        let put = try fixture.request(
            "PUT", fixture.api("conversations/\(id)/tags"),
            body: Self.body([("tags", .array([.string("ok"), .string(heavy)]))]))
        #expect(put.status == 400, "\(put.text.prefix(300))")
        #expect(put.errorCode == "VALIDATION_INVALID_TAG")
        #expect(put.json["error"]?["details"]?["field"] == "tags")
        #expect(put.text.contains("256 bytes"))
        let get = try fixture.request("GET", fixture.api("conversations/\(id)"))
        #expect(get.json["data"]?["tags"] == [])
        // 64 four-byte characters are exactly 256 bytes: accepted; one byte more is not.
        let emoji = String(repeating: "\u{1F600}", count: 64)
        let atLimit = try fixture.request(
            "PUT", fixture.api("conversations/\(id)/tags"), body: Self.body([("tags", [.string(emoji)])]))
        #expect(atLimit.status == 200, "\(atLimit.text)")
        let over = try fixture.request(
            "PUT", fixture.api("conversations/\(id)/tags"),
            body: Self.body([("tags", [.string(Self.letter(withMarks: 128))])]))
        #expect(over.errorCode == "VALIDATION_INVALID_TAG")
        // The list's tag filter has the same limit.
        let filter = try fixture.request(
            "GET", fixture.api("conversations?tag=a" + String(repeating: "%CC%81", count: 128)))
        #expect(filter.errorCode == "VALIDATION_INVALID_TAG")
    }

    @Test func aFourMebibyteTitleIsRefusedAndNothingIsStored() throws {
        let fixture = try APIFixture()
        let huge = String(repeating: "t", count: 4 << 20)
        let post = try fixture.request(
            "POST", fixture.api("conversations"), body: Self.body([("title", .string(huge))]))
        #expect(post.status == 400, "\(post.text.prefix(300))")
        #expect(post.errorCode == "VALIDATION_TOO_LONG")
        #expect(post.json["error"]?["details"]?["field"] == "title")
        #expect(post.text.contains("at most 1024"))
        #expect(try fixture.page(fixture.api("conversations")).items.isEmpty)
        // 512 two-byte characters are exactly 1,024 bytes: accepted; one byte more is not.
        let atLimit = String(repeating: "é", count: 512)
        let ok = try fixture.request(
            "POST", fixture.api("conversations"), body: Self.body([("title", .string(atLimit))]))
        #expect(ok.status == 201, "\(ok.text)")
        #expect(ok.json["data"]?["title"] == .string(atLimit))
        let over = try fixture.request(
            "POST", fixture.api("conversations"), body: Self.body([("title", .string(atLimit + "x"))]))
        #expect(over.errorCode == "VALIDATION_TOO_LONG")
    }

    @Test func searchTextOverItsLimitIsRefused() throws {
        let fixture = try APIFixture()
        let ok = try fixture.request("GET", fixture.api("conversations?q=" + String(repeating: "x", count: 256)))
        #expect(ok.status == 200)
        let over = try fixture.request("GET", fixture.api("conversations?q=" + String(repeating: "x", count: 257)))
        #expect(over.status == 400)
        #expect(over.errorCode == "VALIDATION_TOO_LONG")
        #expect(over.json["error"]?["details"]?["field"] == "q")
    }

    @Test func aTitleDerivedFromAHeavyFirstMessageKeepsToTheLimit() throws {
        let fixture = try APIFixture()
        let message = (0..<60).map { _ in Self.letter(withMarks: 1_000) }.joined()
        let id = try fixture.startConversation(message)
        let title = try #require(
            fixture.request("GET", fixture.api("conversations/\(id)")).json["data"]?["title"]?.stringValue)
        #expect(!title.isEmpty)
        #expect(title.utf8.count <= StringLimits.titleBytes)
        #expect(message.unicodeScalars.starts(with: title.unicodeScalars))
    }

    @Test func prefixCutsBetweenCharactersAndFallsBackToScalars() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "é", "\u{1F600}", "e\u{0301}", "\u{1F1EB}\u{1F1F7}", "z"]
        for _ in 0..<200 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in pieces.randomElement()! }.joined()
            let limit = Int.random(in: 1...40, using: &generator)
            let cut = StringLimits.prefix(text, maxBytes: limit)
            #expect(cut.utf8.count <= limit)
            #expect(text.unicodeScalars.starts(with: cut.unicodeScalars))
            // Maximal: one more character would not fit (or there is none).
            if cut.count < text.count {
                let longer = text.prefix(cut.count + 1)
                #expect(longer.utf8.count > limit, "\(text) \(limit) \(cut)")
            }
        }
        let heavy = Self.letter(withMarks: 2_000)
        let cut = StringLimits.prefix(heavy, maxBytes: 101)
        #expect(cut.unicodeScalars.count == 51)
        #expect(cut.utf8.count == 101)
    }
}
