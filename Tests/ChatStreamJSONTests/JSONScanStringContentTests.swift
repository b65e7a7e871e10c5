// The scan's string content with two-character escapes (JSONScan+StringContent): both reads
// (exact shape and member by member) give yajl's string once decoded, say whether they met an
// escape, stop past the closing quote, and decline (cursor unchanged) a `\u` escape, an unknown
// escape, a string cut short and, for the exact shape, a control character.

import Testing

@_spi(JSONScan) @testable import ChatStreamJSON

@Suite struct JSONScanStringContentTests {
    /// Reads the string `json` (quotes included) followed by `,1` with each read; the decoded
    /// text and whether it had escapes, or nil when the read declined.
    static func read(_ json: String, members: Bool) -> (text: String, escapes: Bool)? {
        let unit = Array((json + ",1").utf8)
        return unit.withUnsafeBytes { data -> (String, Bool)? in
            let limits = JSONConfiguration()
            guard
                var scan = members
                    ? JSONScan(members: data, depth: 0, configuration: limits)
                    : JSONScan(data, depth: 0, configuration: limits),
                scan.literal("\"")
            else { return nil }
            let before = scan.position
            guard let content = members ? scan.checkedStringContent() : scan.stringContent() else {
                #expect(scan.position == before, "a declined read moved the cursor on \(json)")
                return nil
            }
            #expect(scan.literal(",1") && scan.isAtEnd, "the read did not stop past the quote of \(json)")
            return (content.withDecoded { String(decoding: $0, as: UTF8.self) }, content.hasEscapes)
        }
    }

    static let accepted: [String] = [
        #""""#, #""plain text""#, #""\"quoted\"""#, #""path\\to\\file""#, #""line\n""#, #""\n\n""#, #""tab\there""#,
        #""\/\b\f\r""#, #""café \"日本語\" 🚀\n""#, #""\\""#, #""a\\\"b""#, #""ends with \\\\""#,
        "\"" + String(repeating: #"x\"\\\n"#, count: 600) + "\"",  // decoded past a stack-sized buffer
    ]

    @Test(arguments: accepted)
    func escapedStringsDecodeAsYajlReadsThem(json: String) throws {
        let yajl = try JSONParser().parseValue(Array(json.utf8))
        guard case .string(let expected) = yajl else {
            Issue.record("yajl read \(yajl) from \(json)")
            return
        }
        for members in [true, false] {
            let read = Self.read(json, members: members)
            #expect(read?.text == expected, "members \(members): \(json)")
            #expect(read?.escapes == json.contains("\\"), "members \(members): \(json)")
        }
    }

    static let declined: [String] = [
        #""\u0041""#, #""caf\u00e9""#, #""\x""#, #""\'""#, #""\ ""#, #""ab\"#, #""no closing quote"#, #""a\"#,
    ]

    @Test(arguments: declined)
    func unicodeAndBadEscapesAndCutStringsAreDeclined(json: String) {
        // `json + ",1"` may close a cut string with the `,1` inside it: still declined, as no quote follows.
        for members in [true, false] {
            #expect(Self.read(json, members: members) == nil, "members \(members): \(json)")
        }
    }

    @Test func aControlCharacterIsDeclinedByTheExactShape() {
        // A members scan refuses the whole unit before any read; the exact shape refuses it in the string.
        #expect(Self.read("\"a\tb\"", members: false) == nil)
        #expect(Self.read("\"a\\\u{1}\"", members: false) == nil)
        let unit = Array("\"a\tb\"".utf8)
        unit.withUnsafeBytes { data in
            #expect(JSONScan(members: data, depth: 0, configuration: JSONConfiguration()) == nil)
        }
    }

    @Test func illFormedUTF8IsDeclinedByTheExactShape() {
        let unit: [UInt8] = Array("\"a\\n".utf8) + [0xC3, 0x28] + Array("\"".utf8)
        unit.withUnsafeBytes { data in
            var scan = JSONScan(data, depth: 0, configuration: JSONConfiguration())
            #expect(scan?.literal("\"") == true)
            #expect(scan?.stringContent() == nil)
        }
    }
}
