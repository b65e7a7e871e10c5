// The units read member by member (PositionalRead+Members, and the OpenAI chat, OpenAI Responses
// and Gemini reads built on it): a skipped value is accepted only when the parser accepts it; the
// usual units, with their other members in any order and of any kind, give exactly the events the
// general path gives; every other shape is declined untouched and then fails (or not) exactly as
// the general path says; and whole streams, recorded and generated, decode the same owned and
// lent at every chunking as the general path reads them, and as it reads a spaced copy.

import ChatStreamFraming
import ChatStreamJSON
import TestSupport
import Testing

@testable import ChatStream

private typealias T = MemberReadTesting

// MARK: - The member read itself

@Suite struct PositionalMemberReadTests {
    static let validValues: [String] = [
        "0", "-0", "12", "-12", "1.5", "-0.25", "1e5", "1E+5", "1e-5", "2.5E-10", "123456789012345678901234567890",
        "true", "false", "null", #""""#, #""abc""#, #""\"\\\/\b\f\n\r\t""#, #""\u0041\u00e9\uD83D\uDE00\uDEAD\uD800""#,
        "\"é中😀\u{7F}\"", "[]", "{}", "[1,2,3]", #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, "[[[]],{},[{}]]",
        #"{"k\"ey":1,"\u006b":2,"":3}"#, #"["x",{"y":[1,{"z":null}]}]"#,
    ]

    @Test(arguments: validValues)
    func wellFormedValuesAreSkippedAsTheParserReadsThem(value: String) {
        for unit in [#"{"k":\#(value)}"#, #"{"k":\#(value),"l":\#(value)}"#, #"{"a":1,"k":\#(value),"b":"c"}"#] {
            #expect(T.skipsWhole(unit), "\(unit)")
            #expect(T.parses(Array(unit.utf8)), "\(unit)")
        }
    }

    static let hostileValues: [String] = [
        // Numbers outside the grammar, literals cut or run on.
        "01", "-01", "00", "1.", "-", "-a", "1e", "1e+", "1E-", ".5", "+1", "1.e5", "0x1", "1.5.5", "tru", "nul",
        "fals",
        "truex", "nulll", "NaN", "Infinity",
        // Containers and strings out of shape.
        "[1,]", "[,1]", "[1 2]", "[1,,2]", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, "{1:2}", #"{"a" :1}"#, #"{"a":1"b":2}"#,
        "[1}", #"{"a":1]"#, #""\x""#, #""\u12""#, #""\u12G4""#, #""\U0041""#, #""abc"#, #""\""#, "[", "{", "]", "}", "",
        "'a'",
        // Whitespace and raw control characters, inside strings and out.
        " 1", "1 ", "[1, 2]", "[\n1]", "\"a\tb\"", "\"a\u{01}b\"", "\"a\u{0C}b\"", "\"a\u{00}b\"",
        // Bytes after the value.
        "[1]]", "1}",
    ]

    @Test(arguments: hostileValues)
    func malformedOrSpacedValuesAreDeclined(value: String) {
        let unit = #"{"k":\#(value)}"#
        #expect(!T.skipsWhole(unit), "\(unit)")
    }

    @Test func illFormedUTF8AnywhereIsDeclined() {
        for bad: [UInt8] in [
            [0xC3, 0x28], [0xFF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80],
        ] {
            let inValue = Array(#"{"k":"a"#.utf8) + bad + Array(#"b"}"#.utf8)
            let inKey = Array(#"{"a"#.utf8) + bad + Array(#"":1}"#.utf8)
            let inNested = Array(#"{"k":[{"x":""#.utf8) + bad + Array(#""}]}"#.utf8)
            for unit in [inValue, inKey, inNested] {
                #expect(!T.skipsWhole(unit))
                #expect(!T.parses(unit))
            }
        }
    }

    @Test func nestingIsSkippedOnlyWithinTheDepthLimit() {
        let limits = JSONConfiguration(maxDepth: 8)
        for levels in 1...12 {
            let unit = #"{"k":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}"
            #expect(T.skipsWhole(unit, limits) == T.parses(Array(unit.utf8), limits), "\(levels) levels")
            #expect(T.skipsWhole(unit, limits) == (levels + 1 <= 8), "\(levels) levels")
            let objects =
                #"{"k":"# + String(repeating: #"{"a":"#, count: levels) + "1" + String(repeating: "}", count: levels)
                + "}"
            #expect(T.skipsWhole(objects, limits) == T.parses(Array(objects.utf8), limits), "\(levels) objects")
        }
        // Deeper than the skip's own 63 levels: declined, though the parser reads it.
        let deep = #"{"k":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}"
        #expect(!T.skipsWhole(deep))
        #expect(T.parses(Array(deep.utf8)))
    }

    @Test func unitsOverALimitAreDeclined() {
        let unit = #"{"k":"abcdefghijklmnop"}"#
        #expect(T.skipsWhole(unit))
        for limits in [JSONConfiguration(maxValueBytes: 10), JSONConfiguration(maxStringBytes: 8)] {
            #expect(!T.skipsWhole(unit, limits))
            #expect(!T.parses(Array(unit.utf8), limits))
        }
    }

    static let damageBytes: [UInt8] = Array(#"{}[]",:\ u0-1.eE+atrfn"#.utf8) + [0x80, 0x01, 0x0A]

    @Test func randomValuesAndTheirDamageAreNeverAcceptedWhereTheParserRefuses() {
        var generator = SplitMix64(seed: 22)
        let tight = JSONConfiguration(maxDepth: 3, maxValueBytes: 120, maxStringBytes: 60)
        var accepted = 0
        for _ in 0..<3000 {
            let unit = Array((#"{"k":"# + T.randomValue(&generator) + "}").utf8)
            #expect(T.skipsWhole(unit), "\(String(decoding: unit, as: UTF8.self))")
            #expect(T.parses(unit))
            #expect(!T.skipsWhole(unit, tight) || T.parses(unit, tight), "\(String(decoding: unit, as: UTF8.self))")
            // Damaged: a byte changed, dropped or added, or the unit cut short.
            for _ in 0..<4 {
                var damaged = unit
                let at = Int(generator.next() % UInt64(unit.count))
                let byte = Self.damageBytes[Int(generator.next() % UInt64(Self.damageBytes.count))]
                switch generator.next() % 4 {
                case 0: damaged[at] = byte
                case 1: damaged.remove(at: at)
                case 2: damaged.insert(byte, at: at)
                default: damaged = Array(damaged[..<at])
                }
                let skips = T.skipsWhole(damaged)
                if skips { accepted += 1 }
                #expect(!skips || T.parses(damaged), "\(String(decoding: damaged, as: UTF8.self))")
            }
        }
        // Some damage leaves well-formed JSON (a digit for a digit), and that is still read.
        #expect(accepted > 100)
    }
}
