// Differential test of the scan (JSONScan) against yajl (JSONParser): on JSONTestSuite, on
// generated values and on their damage, at the default limits and at tight ones, read member by
// member (skipping values at random) and as exact shapes, whatever the scan reads, yajl reads as
// the same value; whatever yajl refuses, the scan declines. The scan may decline what yajl reads
// (whitespace, `\u` escapes, numbers other than small integers): the dialect then uses yajl.
// The fuzz target FuzzJSON checks the same on every input it makes.

import Foundation
import TestSupport
import Testing

@_spi(JSONScan) @testable import ChatStreamJSON

@Suite struct JSONScanDifferentialTests {
    /// What the scan made of one input against yajl: whether it read it.
    @discardableResult
    static func compare(
        _ bytes: [UInt8], _ limits: JSONConfiguration = JSONConfiguration(), members: Bool,
        generator: inout SplitMix64, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let yajl = try? JSONParser(configuration: limits).parseValue(bytes)
        var skips = generator
        let scanned: JSONTree?
        do {
            scanned = try bytes.withUnsafeBytes { data in
                try JSONScan.tree(of: data, members: members, configuration: limits) { skips.next() % 3 == 0 }
            }
        } catch {
            Issue.record("a skipped value is not JSON: \(error) in \(Self.text(bytes))", sourceLocation: sourceLocation)
            return false
        }
        generator = skips
        guard let scanned else { return false }
        #expect(
            yajl == scanned, "scan \(scanned) != yajl \(String(describing: yajl)) on \(Self.text(bytes))",
            sourceLocation: sourceLocation)
        return true
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self).debugDescription }

    static let tight = JSONConfiguration(maxDepth: 3, maxValueBytes: 120, maxStringBytes: 60)

    @Test func jsonTestSuiteIsReadAsYajlReadsItOrDeclined() {
        let directory = ProjectPaths.shared + "/conformance/JSONTestSuite/test_parsing"
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        #expect(files.count >= 318)
        var generator = SplitMix64(seed: 29)
        var read = 0
        for name in files {
            let bytes = Array(FileManager.default.contents(atPath: directory + "/" + name) ?? Data())
            for members in [true, false] {
                for limits in [JSONConfiguration(), Self.tight] {
                    if Self.compare(bytes, limits, members: members, generator: &generator) { read += 1 }
                }
            }
        }
        // Compact files with plain strings and small integers are read, not only declined.
        #expect(read > 80)
    }

    static let validValues: [String] = [
        "0", "-0", "12", "-12", "1.5", "-0.25", "1e5", "1E+5", "1e-5", "2.5E-10", "123456789012345678901234567890",
        "true", "false", "null", #""""#, #""abc""#, #""\"\\\/\b\f\n\r\t""#, #""\u0041\u00e9\uD83D\uDE00\uDEAD\uD800""#,
        "\"é中😀\u{7F}\"", "[]", "{}", "[1,2,3]", #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, "[[[]],{},[{}]]",
        #"{"k\"ey":1,"\u006b":2,"":3}"#, #"["x",{"y":[1,{"z":null}]}]"#, "999999999", "1000000000",
    ]

    @Test(arguments: validValues)
    func wellFormedValuesAreSkippedAsYajlReadsThem(value: String) throws {
        // Skipped whole (every member value skipped), and then read as far as the scan can.
        for unit in [#"{"k":\#(value)}"#, #"{"k":\#(value),"l":\#(value)}"#, #"{"a":1,"k":\#(value),"b":"c"}"#] {
            let bytes = Array(unit.utf8)
            let skipped = try bytes.withUnsafeBytes { data in
                try JSONScan.tree(of: data, members: true, configuration: JSONConfiguration()) { true }
            }
            #expect(skipped != nil, "\(unit)")
            #expect(skipped == (try? JSONParser().parseValue(bytes)), "\(unit)")
            var generator = SplitMix64(seed: 1)
            Self.compare(bytes, members: true, generator: &generator)
            Self.compare(bytes, members: false, generator: &generator)
        }
    }

    static let hostileValues: [String] = [
        // Numbers outside the grammar, literals cut or run on.
        "01", "-01", "00", "1.", "-", "-a", "1e", "1e+", "1E-", ".5", "+1", "1.e5", "0x1", "1.5.5", "tru", "nul",
        "fals", "truex", "nulll", "NaN", "Infinity",
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
    func malformedOrSpacedValuesAreDeclinedSkippedOrRead(value: String) throws {
        let bytes = Array(#"{"k":\#(value)}"#.utf8)
        for skip in [true, false] {
            let scanned = try bytes.withUnsafeBytes { data in
                try JSONScan.tree(of: data, members: true, configuration: JSONConfiguration()) { skip }
            }
            #expect(scanned == nil, "\(value)")
        }
        let exact = try bytes.withUnsafeBytes { data in
            try JSONScan.tree(of: data, members: false, configuration: JSONConfiguration()) { false }
        }
        #expect(exact == nil, "\(value)")
    }

    @Test func illFormedUTF8AnywhereIsDeclined() throws {
        for bad: [UInt8] in [
            [0xC3, 0x28], [0xFF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80],
        ] {
            let inValue = Array(#"{"k":"a"#.utf8) + bad + Array(#"b"}"#.utf8)
            let inKey = Array(#"{"a"#.utf8) + bad + Array(#"":1}"#.utf8)
            let inNested = Array(#"{"k":[{"x":""#.utf8) + bad + Array(#""}]}"#.utf8)
            for unit in [inValue, inKey, inNested] {
                for (members, skip) in [(true, true), (true, false), (false, false)] {
                    let scanned = try unit.withUnsafeBytes { data in
                        try JSONScan.tree(of: data, members: members, configuration: JSONConfiguration()) { skip }
                    }
                    #expect(scanned == nil)
                }
            }
        }
    }

    @Test func nestingIsReadOnlyWithinTheDepthLimit() throws {
        let limits = JSONConfiguration(maxDepth: 8)
        var generator = SplitMix64(seed: 8)
        for levels in 1...12 {
            let arrays = #"{"k":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}"
            let objects =
                #"{"k":"# + String(repeating: #"{"a":"#, count: levels) + "1" + String(repeating: "}", count: levels)
                + "}"
            for unit in [arrays, objects] {
                for members in [true, false] {
                    let read = Self.compare(Array(unit.utf8), limits, members: members, generator: &generator)
                    #expect(read == (levels + 1 <= 8), "\(levels) levels: \(unit)")
                }
            }
        }
        // Deeper than the skip's own 63 levels: declined, though yajl reads it.
        let deep = Array(
            (#"{"k":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}").utf8)
        let skipped = try deep.withUnsafeBytes { data in
            try JSONScan.tree(of: data, members: true, configuration: JSONConfiguration()) { true }
        }
        #expect(skipped == nil)
        #expect((try? JSONParser().parseValue(deep)) != nil)
    }

    @Test func unitsOverALimitAreDeclined() {
        let unit = Array(#"{"k":"abcdefghijklmnop"}"#.utf8)
        var generator = SplitMix64(seed: 3)
        #expect(Self.compare(unit, members: true, generator: &generator))
        for limits in [JSONConfiguration(maxValueBytes: 10), JSONConfiguration(maxStringBytes: 8)] {
            #expect(!Self.compare(unit, limits, members: true, generator: &generator))
            #expect(!Self.compare(unit, limits, members: false, generator: &generator))
        }
    }

    @Test func theTapeOnlyModeOffersNoScan() {
        var limits = JSONConfiguration()
        limits.reading = .tapeOnly
        let unit = Array(#"{"type":"text-delta","id":"t1","delta":"Hi"}"#.utf8)
        unit.withUnsafeBytes { data in
            #expect(JSONScan(data, depth: 1, configuration: limits) == nil)
            #expect(JSONScan(members: data, depth: 1, configuration: limits) == nil)
            #expect(JSONScan(data, depth: 1, configuration: JSONConfiguration()) != nil)
        }
    }

    static let damageBytes: [UInt8] = Array(#"{}[]",:\ u0-1.eE+atrfn"#.utf8) + [0x80, 0x01, 0x0A, 0xC3, 0x7F]

    @Test func generatedValuesAndTheirDamageAreReadAsYajlReadsThemOrDeclined() {
        var generator = SplitMix64(seed: 22)
        var read = 0
        var damagedRead = 0
        for round in 0..<3000 {
            let unit = Array(Self.randomValue(&generator).utf8)
            let members = round % 2 == 0
            for limits in [JSONConfiguration(), Self.tight] {
                if Self.compare(unit, limits, members: members, generator: &generator) { read += 1 }
            }
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
                if Self.compare(damaged, members: members, generator: &generator) { damagedRead += 1 }
            }
        }
        // Not only declines: most generated values, and some damage that leaves JSON, are read.
        #expect(read > 1500)
        #expect(damagedRead > 100)
    }

    /// A compact JSON value: the kinds and escapes of the hot shapes, often; the others, sometimes.
    static func randomValue(_ generator: inout SplitMix64, depth: Int = 0) -> String {
        let numbers = ["0", "7", "12", "999999999", "-12", "1.5", "1e5", "123456789012345678901234567890"]
        let strings = [
            #""""#, #""abc""#, #""a\"b\\c\/\n\t""#, #""\u0041""#, "\"é中😀\"", #""{\"k\":[1]}""#, #""delta""#,
        ]
        func pick(_ list: [String]) -> String { list[Int(generator.next() % UInt64(list.count))] }
        switch generator.next() % (depth < 4 ? 7 : 4) {
        case 0: return pick(numbers)
        case 1, 3: return pick(strings)
        case 2: return pick(["true", "false", "null"])
        case 4:
            let count = Int(generator.next() % 4)
            return "[" + (0..<count).map { _ in randomValue(&generator, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let count = Int(generator.next() % 4)
            return "{"
                + (0..<count).map { index in
                    pick(strings).dropLast() + "\(index)\":" + randomValue(&generator, depth: depth + 1)
                }.joined(separator: ",") + "}"
        }
    }
}
