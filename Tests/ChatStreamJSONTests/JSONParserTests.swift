import Testing

@testable import ChatStreamJSON

@Suite struct JSONParserTests {
    let parser = JSONParser()

    func parse(_ text: String) throws -> JSONTree { try parser.parseValue(Array(text.utf8)) }

    @Test func parsesAllKindsAndKeepsKeyOrder() throws {
        let value = try parse(#" {"b":1,"a":[true,false,null,"x",-2.5e3],"c":{}} "#)
        #expect(value.objectValue?.keys == ["b", "a", "c"])
        #expect(value["a"] == [true, false, nil, "x", -2500.0])
        #expect(value.jsonText == #"{"b":1,"a":[true,false,null,"x",-2500.0],"c":{}}"#)
    }

    @Test func everyInt64IncludingMinimumIsExact() throws {
        #expect(try parse("-9223372036854775808").int64Value == Int64.min)
        #expect(try parse("9223372036854775807").int64Value == Int64.max)
        #expect(try parse("[0,-0,1,-1]") == [0, 0, 1, -1])
    }

    @Test func integersBeyondInt64AreKeptAsText() throws {
        let digits = String(repeating: "9", count: 400)
        let value = try parse(digits)
        #expect(value.int64Value == nil)
        #expect(value.numberValue?.text == digits)
        #expect(try parse("9223372036854775808").numberValue?.text == "9223372036854775808")
        #expect(try parse("-9223372036854775809").numberValue?.text == "-9223372036854775809")
        #expect(try parse("1e400").numberValue?.text == "1e400")
    }

    @Test func doublesParseExactly() throws {
        #expect(try parse("0.1").doubleValue == 0.1)
        #expect(try parse("-1.5E-7").doubleValue == -1.5e-7)
        #expect(try parse("[1.0]") == [1])
    }

    @Test func escapesAndSurrogatePairsDecode() throws {
        #expect(try parse(#""a\n\"\\\/\t\u00e9\ud83d\ude00""#) == "a\n\"\\/\té😀")
        #expect(try parse(#"{"k\u0041":"v"}"#)["kA"] == "v")
    }

    @Test func escapedStringsDecodeTheSameOnBothPaths() throws {
        // Escapes that decode to ASCII other than `?` take yajl's decoding; a `?`, a byte above
        // 0x7F or a surrogate escape sends the string through our own unescaper. Both must agree
        // with the plain meaning, in strings and in keys, short and past eight bytes.
        let cases: [(String, String)] = [
            (#""\n""#, "\n"), (#""line\none\tand \"two\"""#, "line\none\tand \"two\""),
            (#""\u0041\u0062c""#, "Abc"), (#""why\u003F""#, "why?"), (#""what?\n""#, "what?\n"),
            (#""caf\u00e9 and more text""#, "café and more text"), (#""é\n""#, "é\n"),
            (#""\ud83d\ude00 and \n""#, "😀 and \n"), (#""\ud800 lone\n""#, "\u{FFFD} lone\n"),
            (#""\u0000x""#, "\u{0}x"), ("\"\u{D55C}\\n\"", "\u{D55C}\n"), ("\"\u{1F600}\\t\"", "\u{1F600}\t"),
            // Each of yajl's surrogate outputs (`?`, an encoded low surrogate, a four-byte
            // sequence) past eight bytes, where its output is checked a word at a time.
            (#""\udc00 and a longer tail""#, "\u{FFFD} and a longer tail"),
            (#""a longer head \udc00""#, "a longer head \u{FFFD}"),
            (#""\ud800\u0041 and a longer tail""#, "\u{FFFD}A and a longer tail"),
            (#""a longer head \ud800 x""#, "a longer head \u{FFFD} x"),
        ]
        for (json, expected) in cases {
            #expect(try parse(json) == .string(expected), "\(json)")
            #expect(try parse("{\(json):1}").objectValue?.keys == [expected], "key \(json)")
        }
    }

    @Test func stringsReadFromTheTapeHoldExactlyTheDecodedBytes() throws {
        // Strings are made from the tape without a second UTF-8 check, so their bytes must be
        // exactly the decoded text, on every path that makes one (element, tree, key), below,
        // at and above the 15 bytes a small string holds, raw and escaped.
        let pieces: [(String, String)] = [
            ("a", "a"), ("é", "é"), ("\\u00e9", "é"), ("\\ud83d\\ude00", "😀"), ("\\udc00", "\u{FFFD}"),
            ("\\n", "\n"), ("한", "한"), ("\\u0000", "\u{0}"),
        ]
        for (raw, decoded) in pieces {
            for repeats in [1, 5, 14, 15, 16, 40] {
                let json = "\"" + String(repeating: raw, count: repeats) + "\""
                let expected = Array(String(repeating: decoded, count: repeats).utf8)
                let element = try parser.parse(Array("{\"k\":\(json)}".utf8)) { $0["k"]?.string }
                let tree = try parse(json).stringValue
                let key = try parse("{\(json):1}").objectValue?.keys.first
                for made in [element, tree, key] {
                    #expect(made.map { Array($0.utf8) } == expected, "\(json)")
                    #expect(made.flatMap { String(validating: Array($0.utf8), as: UTF8.self) } == made, "\(json)")
                }
            }
        }
    }

    @Test func topLevelStringsReadTheRawBytesOnlyWithoutEscapes() throws {
        // yajl hands a top-level string from its own buffer even without escapes; the parser
        // then points into the input when the bytes before the closing quote are the whole
        // string. With escapes the decoded text is shorter, and the quote found `count` bytes
        // back is an escaped one inside the string (a trap for a check that does not look at the
        // backslash before it): `"\"\"ab"` must read `""ab`, not `\"ab`.
        let cases: [(String, String)] = [
            (#""abc""#, "abc"), (#""""#, ""), (#""\"\"ab""#, #"""ab"#), (#""\\""#, #"\"#), (#""a\"b""#, #"a"b"#),
            (#""\\\"""#, #"\""#), (#""x\\""#, #"x\"#), (#""\u0022\u0022ab""#, #"""ab"#), (#""é\"é""#, #"é"é"#),
            (#"  "padded"  "#, "padded"), (#""\"ab""#, #""ab"#),
        ]
        for (json, expected) in cases {
            #expect(try parser.parse(Array(json.utf8)) { $0.string } == expected, "\(json)")
            #expect(try parse(json) == .string(expected), "\(json)")
            // The same strings inside an object, as key and value, and after another value.
            #expect(try parse("{\(json):\(json)}") == .object(JSONObject([(expected, .string(expected))])), "\(json)")
            #expect(try parse("[1,\(json)]") == [1, .string(expected)], "\(json)")
        }
    }

    @Test func formFeedAndVerticalTabAreFoundAtEveryPosition() throws {
        // The scan before parsing reads eight bytes at a time with an overlapping tail: put the
        // byte at every inner offset of payloads of several lengths.
        for length in [3, 7, 8, 9, 15, 16, 17, 40] {
            for position in 1..<(length - 1) {
                for bad: UInt8 in [0x0B, 0x0C] {
                    var bytes = [UInt8](repeating: 0x20, count: length)
                    bytes[0] = 0x5B  // [
                    bytes[length - 1] = 0x5D  // ]
                    bytes[position] = bad
                    let error = #expect(throws: JSONError.self) { try parser.parseValue(bytes, streamOffset: 10) }
                    #expect(error?.byteOffset == 10 + position, "length \(length) position \(position)")
                }
            }
        }
        // Bytes 0x8B and 0x8C inside well-formed UTF-8 are not form feeds.
        #expect(try parse("[\"\u{10B}\u{10C}\u{30B}\", \"\u{30C}\"]") == ["\u{10B}\u{10C}\u{30B}", "\u{30C}"])
    }

    @Test func loneSurrogateEscapesBecomeReplacementCharacter() throws {
        #expect(try parse(#""\ud800""#) == "\u{FFFD}")
        #expect(try parse(#""\udc00x""#) == "\u{FFFD}x")
        #expect(try parse(#""\ud800\u0041""#) == "\u{FFFD}A")
        #expect(try parse(#""\ud800\ud800\udc00""#) == "\u{FFFD}\u{10000}")
    }

    @Test(
        arguments: [
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],  // beyond U+10FFFF
            [0x22, 0x80, 0x22],  // lone continuation
            [0x22, 0x5C, 0x6E, 0xC3, 0x22],  // truncated sequence after an escape
            [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],  // invalid key
        ] as [[UInt8]])
    func invalidUTF8IsAnError(_ bytes: [UInt8]) {
        let error = #expect(throws: JSONError.self) { try parser.parseValue(bytes) }
        #expect(error?.kind == .invalidUTF8 || error?.kind == .syntax)
    }

    @Test func invalidUTF8ReportsItsOffset() {
        let error = #expect(throws: JSONError.self) {
            try parser.parseValue([0x22, 0x61, 0xC0, 0xAF, 0x22], streamOffset: 100)
        }
        #expect(error?.kind == .invalidUTF8)
        #expect(error?.byteOffset == 102)
    }

    @Test func utf8IsCheckedAtEveryPositionOfTheWordScan() throws {
        // The check reads eight bytes at a time, jumps to a word's first byte of 0x80 or more, and
        // takes a short tail as the last eight bytes shifted: put each sequence at every offset of
        // strings of several lengths, after other multi-byte text or none.
        let bad: [[UInt8]] = [[0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82]]
        let good: [[UInt8]] = [[0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80]]
        for length in [1, 5, 7, 8, 9, 15, 16, 17, 31] {
            for position in 0...length {
                for prefix in [[], [0xC3, 0xA9]] as [[UInt8]] {
                    func payload(_ sequence: [UInt8]) -> [UInt8] {
                        var bytes = [UInt8](repeating: 0x61, count: length)
                        bytes.insert(contentsOf: sequence, at: position)
                        return [0x22] + prefix + bytes + [0x22]
                    }
                    for sequence in bad {
                        let error = #expect(throws: JSONError.self) {
                            try parser.parseValue(payload(sequence), streamOffset: 100)
                        }
                        #expect(error?.kind == .invalidUTF8, "\(sequence) at \(position) of \(length)")
                        #expect(error?.byteOffset == 100 + 1 + prefix.count + position, "\(sequence) at \(position)")
                    }
                    for sequence in good {
                        let bytes = payload(sequence)
                        let text = String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
                        #expect(try parser.parseValue(bytes) == .string(text), "\(sequence) at \(position)")
                    }
                }
            }
        }
    }

    @Test func nulByteInsideStringIsRejectedAndEscapedNulIsKept() throws {
        #expect(throws: JSONError.self) { try parser.parseValue([0x22, 0x00, 0x22]) }
        #expect(try parse(#""a\u0000b""#).stringValue?.utf8.count == 3)
    }

    /// The worked examples in the headers of JSONParser.swift and its +Driving, +Callbacks and
    /// +Strings files.
    @Test func theFileHeadersExamplesHold() throws {
        // JSONParser.swift: one parser, two payloads, the tape reset between them.
        #expect(try parse(#"{"name":"Ada"}"#) == ["name": "Ada"])
        #expect(try parse("[1,2]") == [1, 2])
        #expect(parser.tape.tokenCount == 3)

        // +Driving: a lone number, two values, a string under way after a value.
        #expect(try parse("12") == 12)
        let two = #expect(throws: JSONError.self) { try parse("{} {}") }
        #expect(two?.kind == .multipleValues)
        #expect(two?.byteOffset == 5)
        let underWay = #expect(throws: JSONError.self) { try parse(#"{} "ab"#) }
        #expect(underWay?.kind == .multipleValues)
        #expect(underWay?.byteOffset == 3)

        // +Callbacks: five tokens, closes write where containers end; the depth limit.
        #expect(try parse(#"[1,{"a":null}]"#) == [1, ["a": nil]])
        let kinds = (0..<parser.tape.tokenCount).map { parser.tape.tokens[$0].kind }
        #expect(kinds == [.array, .number, .object, .key, .null])
        #expect(parser.tape.tokens[0].a == 5)
        #expect(parser.tape.tokens[2].a == 5)
        let shallow = JSONParser(configuration: JSONConfiguration(maxDepth: 1))
        let deep = #expect(throws: JSONError.self) { try shallow.parseValue(Array("[[1]]".utf8)) }
        #expect(deep?.kind == .depthLimitExceeded)
        #expect(deep?.byteOffset == 1)

        // +Strings: a string in the input, one from yajl's buffer kept, one unescaped here, and a
        // top-level string found back between its quotes.
        #expect(try parse(#"{"k":"Ada"}"#) == ["k": "Ada"])
        let ada = parser.tape.tokens[2]
        #expect(ada.kind == .string && ada.a == 6 && ada.b == 3)
        #expect(try parse(#""caf\u00e9""#) == "café")
        #expect(parser.tape.tokens[0].a & JSONTape.arenaFlag != 0)
        #expect(try parse(#""\ud800""#) == "\u{FFFD}")
        #expect(try parse(#""hi""#) == "hi")
        #expect(parser.tape.tokens[0].a == 1 && parser.tape.tokens[0].b == 2)
    }

    @Test func depthLimitIsAClearError() throws {
        let limited = JSONParser(configuration: JSONConfiguration(maxDepth: 4))
        #expect(try limited.parseValue(Array("[[[[1]]]]".utf8)) == [[[[1]]]])
        let error = #expect(throws: JSONError.self) { try limited.parseValue(Array("[[[[[1]]]]]".utf8)) }
        #expect(error?.kind == .depthLimitExceeded)
        #expect(error?.byteOffset == 4)
    }

    @Test func millionDeepNestingFailsAtTheDefaultLimit() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        let error = #expect(throws: JSONError.self) { try parser.parseValue(bytes) }
        #expect(error?.kind == .depthLimitExceeded)
        #expect(error?.byteOffset == 512)
    }

    @Test func valueAndStringLimitsAreClearErrors() {
        let small = JSONParser(configuration: JSONConfiguration(maxValueBytes: 10, maxStringBytes: 3))
        #expect(
            (#expect(throws: JSONError.self) { try small.parseValue(Array("[1,2,3,4,5,6]".utf8)) })?.kind
                == .valueTooLarge)
        #expect(
            (#expect(throws: JSONError.self) { try small.parseValue(Array(#""abcd""#.utf8)) })?.kind == .stringTooLong)
        #expect((try? small.parseValue(Array(#""abc""#.utf8))) == "abc")
    }

    @Test func oneValueExactly() {
        #expect((#expect(throws: JSONError.self) { try parse("{} {}") })?.kind == .multipleValues)
        #expect((#expect(throws: JSONError.self) { try parse("{} 12") })?.kind == .multipleValues)
        #expect((#expect(throws: JSONError.self) { try parse("   ") })?.kind == .incomplete)
        #expect((#expect(throws: JSONError.self) { try parse(#"{"a":"#) })?.kind == .incomplete)
    }

    @Test func reusedParserRecoversAfterErrorsAndTopLevelNumbers() throws {
        #expect(try parse("12") == 12)
        #expect(try parse("[3]") == [3])
        _ = try? parse(#"{"a":tru"#)
        #expect(try parse("7") == 7)
        _ = try? parse(#""unterminated"#)
        #expect(try parse(#"{"ok":true}"#) == ["ok": true])
    }

    @Test func syntaxErrorCarriesOffsetAndYajlMessage() {
        let error = #expect(throws: JSONError.self) {
            try parser.parseValue(Array(#"{"a":1,}"#.utf8), streamOffset: 1000)
        }
        #expect(error?.kind == .syntax)
        #expect((1000...1008).contains(error?.byteOffset ?? 0))
        #expect(error?.message.isEmpty == false)
    }

    @Test func elementReadsFieldsWithoutATree() throws {
        let bytes = Array(#"{"type":"text-delta","id":"t1","delta":"Hé\n","n":-3,"o":{"x":[1,2]},"type":"last"}"#.utf8)
        try parser.parse(bytes) { root in
            #expect(root.kind == .object)
            #expect(root["type"]?.isString("last") == true)
            #expect(root["delta"]?.string == "Hé\n")
            #expect(root["n"]?.int64 == -3)
            #expect(root["o"]?["x"]?[1]?.int == 2)
            #expect(root["missing"] == nil)
            #expect(root["o"]?.jsonValue == ["x": [1, 2]])
            var keys: [String] = []
            root.forEachMember { key, _ in keys.append(key.string ?? "") }
            #expect(keys == ["type", "id", "delta", "n", "o", "type"])
        }
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        #expect(try parse(#"{"a":1,"b":2,"a":3}"#) == ["a": 3, "b": 2])
        let many = "{" + (0..<40).map { "\"k\($0 % 20)\":\($0)" }.joined(separator: ",") + "}"
        let value = try parse(many)
        #expect(value.objectValue?.count == 20)
        #expect(value["k0"] == 20)
    }

    @Test(arguments: [2, 16, 17, 64, 65, 70])
    func repeatedKeysKeepTheLastValueAtTheFirstPosition(_ members: Int) throws {
        // Key `k0` repeats as the last member; every other key is new. Objects up to 64 members
        // are checked for repeats in the tape, larger ones look keys up.
        var parts = (0..<(members - 1)).map { "\"k\($0)\":\($0)" }
        parts.append("\"k0\":\"last\"")
        let object = try #require(try parse("{" + parts.joined(separator: ",") + "}").objectValue)
        #expect(object.count == members - 1)
        #expect(object.keys.first == "k0")
        #expect(object["k0"] == "last")
        #expect(object.keys == (0..<(members - 1)).map { "k\($0)" })
        // Keys that are equal only under Unicode canonical equivalence stay two keys.
        let accents = try #require(try parse("{\"\u{E9}\":1,\"e\u{301}\":2}").objectValue)
        #expect(accents.count == 2)
    }

    @Test func elementCountsAreTheMembersOrElements() throws {
        let parser = JSONParser()
        let json = #"{"a":[1,[2,3],{"x":{}},"s",null],"b":{},"c":"s","d":[[],[[]],{"y":[1]}],"e":{"k":[{}],"l":2}}"#
        let counts = try parser.parse(Array(json.utf8)) { root in
            [
                root.count, root["a"]?.count, root["a"]?[1]?.count, root["a"]?[2]?.count, root["a"]?[2]?["x"]?.count,
                root["b"]?.count, root["c"]?.count, root["d"]?.count, root["d"]?[1]?.count, root["e"]?.count,
                root["e"]?["k"]?.count,
            ]
        }
        #expect(counts == [5, 5, 2, 1, 0, 0, nil, 3, 1, 2, 1])
        #expect(try parser.parse(Array("[]".utf8)) { $0.count } == 0)
        #expect(try parser.parse(Array("7".utf8)) { $0.count } == nil)
    }

    @Test func threeScalarMembersAreReadByPositionOnlyInTheirExactShape() throws {
        let parser = JSONParser()
        func read(_ json: String) throws -> [String]? {
            try parser.parse(Array(json.utf8)) { root in
                root.scalarMembersInOrder("type", "id", "delta").map { members in
                    [members.0, members.1, members.2].map { $0.string ?? "\($0.kind)" }
                }
            }
        }
        #expect(try read(#"{"type":"a","id":"b","delta":"c"}"#) == ["a", "b", "c"])
        #expect(try read(#"{"type":1,"id":null,"delta":true}"#) == ["number", "null", "bool"])
        #expect(try read(#"{"type":"a","id":"b","delta":"c","x":1}"#) == nil)
        #expect(try read(#"{"type":"a","delta":"c","id":"b"}"#) == nil)
        #expect(try read(#"{"type":"a","id":"b"}"#) == nil)
        #expect(try read(#"{"type":"a","id":"b","delta":{}}"#) == nil)
        #expect(try read(#"{"type":"a","id":"b","delta":[]}"#) == nil)
        // Seven tokens, but a key of the three inside an object: not the shape.
        #expect(try read(#"{"type":{"id":"a"},"delta":"c"}"#) == nil)
        #expect(try read(#"{"type":"a","id":{"delta":"c"}}"#) == nil)
        #expect(try read(#"{"typf":"a","id":"b","delta":"c"}"#) == nil)
        #expect(try read(#"["type","a","id","b","delta","c"]"#) == nil)
        #expect(try read(#""type""#) == nil)
    }
}
