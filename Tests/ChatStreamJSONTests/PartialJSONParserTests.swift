import Foundation
import TestSupport
import Testing

@testable import ChatStreamJSON

/// Feeds `pieces` and returns the value read after each piece and the finished value.
private func run(_ pieces: [[UInt8]], parser: PartialJSONParser = PartialJSONParser()) throws -> (
    partials: [JSONTree?], final: JSONTree
) {
    var parser = parser
    var partials: [JSONTree?] = []
    for piece in pieces {
        try parser.append(piece)
        partials.append(parser.value)
    }
    return (partials, try parser.finish())
}

/// The value of `text` parsed whole, without finishing (the partial value of a prefix).
private func partialValue(_ bytes: [UInt8]) throws -> JSONTree? {
    var parser = PartialJSONParser()
    try parser.append(bytes)
    return parser.value
}

/// The error `pieces` produce, from `append` or `finish`.
private func failure(_ pieces: [[UInt8]], parser: PartialJSONParser = PartialJSONParser()) -> PartialJSONError? {
    var parser = parser
    do {
        for piece in pieces { try parser.append(piece) }
        _ = try parser.finish()
        return nil
    } catch {
        return error as? PartialJSONError
    }
}

// MARK: - Oracle: Foundation's JSONSerialization, converted to JSONTree

private func oracle(_ bytes: [UInt8]) throws -> JSONTree {
    convert(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
}

private func convert(_ any: Any) -> JSONTree {
    switch any {
    case is NSNull:
        return .null
    case let number as NSNumber:
        if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
        if let decimal = number as? NSDecimalNumber, let exact = JSONNumber(literal: decimal.stringValue) {
            return .number(exact)
        }
        return .number(JSONNumber(number.doubleValue))
    case let string as String:
        return .string(string)
    case let array as [Any]:
        return .array(array.map(convert))
    case let object as [String: Any]:
        return .object(JSONObject(object.map { ($0.key, convert($0.value)) }))
    default:
        Issue.record("unexpected Foundation value \(type(of: any))")
        return .null
    }
}

/// Equality with numbers compared as doubles (Foundation does not keep integer/decimal kinds exactly).
private func sameJSON(_ a: JSONTree, _ b: JSONTree) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)):
        let dx = x.doubleValue, dy = y.doubleValue
        return dx == dy || abs(dx - dy) <= 1e-12 * max(1, abs(dx), abs(dy))
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
    case (.object(let x), .object(let y)):
        return x.count == y.count
            && x.allSatisfy { member in y[member.key].map { sameJSON(member.value, $0) } ?? false }
    default:
        return a == b
    }
}

private let documents: [String] = [
    #"{"city":"Paris","days":3,"units":null,"ok":true,"no":false}"#,
    #"[1,-2,3.5,-0.25e2,1E3,0,-0,12345678901234567890,-9223372036854775808,9223372036854775807,1e-7]"#,
    #"{"nested":{"a":[{"b":[[],[{}]]},"x\"y\\z\/"],"c":"tab\tnew\nline\r\b\f"},"e":[],"o":{}}"#,
    "  \"\\u00e9\\u4E2D\\ud83d\\ude00 \u{2014} é中😀 ¢€𐍈\"  ",
    #"{"query":"SELECT * FROM t WHERE a = ']' AND b = '}', c = \"q\""}"#,
    """
    {
      "location": {"city": "Paris", "country": "FR"},
      "days": [ 1, 2, 3 ],
      "note": "multi-byte: Ω ≈ ç √ ∫ 😀 🇫🇷",
      "deep": [[[[[{"x": [null, true, false]}]]]]]
    }

    """,
    "true", "null", "false", "-1.5", #""solo""#, "0", "  42  ", "[]", "{}", #""""#,
]

@Suite("PartialJSONParser")
struct PartialJSONParserTests {
    // MARK: Partial values, derived by hand

    @Test(
        arguments: [
            ("", nil),
            ("  \n", nil),
            ("{", [:]),
            (#"{"ci"#, [:]),
            (#"{"city""#, [:]),
            (#"{"city": "#, [:]),
            (#"{"city": "Par"#, ["city": "Par"]),
            (#"{"city": "Paris""#, ["city": "Paris"]),
            (#"{"city": "Paris", "days": 1"#, ["city": "Paris", "days": 1]),
            (#"{"city": "Paris", "days": -"#, ["city": "Paris"]),
            (#"{"a": 1."#, [:]),
            (#"{"a": 1.5e"#, [:]),
            (#"{"a": 1.5e+"#, [:]),
            (#"{"a": 1.5e3"#, ["a": 1500.0]),
            (#"{"a": tr"#, [:]),
            (#"{"a": true"#, ["a": true]),
            (#"{"a": nul"#, [:]),
            (#"[1, [2, "x"#, [1, [2, "x"]]),
            (#"[1, {"k": ["#, [1, ["k": []]]),
            (#"[1, {"k": [{"#, [1, ["k": [[:]]]]),
            (#"[1,"#, [1]),
            (#"[1"#, [1]),
            (#""ab"#, "ab"),
            (#""a\"#, "a"),
            (#""a\u00"#, "a"),
            (#""a\u00e9"#, "aé"),
            (#""\ud83d"#, ""),
            (#""\ud83d\"#, ""),
            (#""\ud83d\ude00"#, "😀"),
            (#""\ud83dx"#, "\u{FFFD}x"),
            (#""\ude00x"#, "\u{FFFD}x"),
            (#""\ud83d\n"#, "\u{FFFD}\n"),
            (#""\ud83d\ud83d\ude00"#, "\u{FFFD}😀"),
            ("12", 12),
            ("-", nil),
            ("-0", 0),
            (#"{"a":1,"a":2"#, ["a": 2]),
            (#"{"a":1,"b":2,"a":"x"#, ["a": "x", "b": 2]),
        ] as [(String, JSONTree?)])
    func partialValueOfPrefixIsWhatTheUserShouldSee(prefix: String, expected: JSONTree?) throws {
        for chunking in Chunkings.all(of: Array(prefix.utf8)) {
            var parser = PartialJSONParser()
            for piece in chunking.pieces { try parser.append(piece) }
            #expect(parser.value == expected, "\(chunking)")
        }
    }

    @Test func partialStringPrefixKeepsMultiByteCharactersWhole() throws {
        let bytes = Array(#"{"s":"é😀"}"#.utf8)
        var parser = PartialJSONParser()
        var seen: [String] = []
        for byte in bytes {
            try parser.append([byte])
            if let text = parser.value?["s"]?.stringValue, seen.last != text { seen.append(text) }
        }
        #expect(seen == ["", "é", "é😀"])
    }

    // MARK: Against the oracle, every chunking

    @Test(arguments: documents)
    func finalValueMatchesFoundationForEveryChunking(document: String) throws {
        let bytes = Array(document.utf8)
        let expected = try oracle(bytes)
        for chunking in Chunkings.all(of: bytes) {
            let result = try run(chunking.pieces)
            #expect(sameJSON(result.final, expected), "\(chunking): \(result.final) vs \(expected)")
            #expect(result.partials.last == result.final, "\(chunking)")
        }
    }

    @Test(arguments: documents)
    func valueAfterEveryByteEqualsValueOfThatPrefixParsedWhole(document: String) throws {
        let bytes = Array(document.utf8)
        var parser = PartialJSONParser()
        for end in bytes.indices {
            try parser.append(bytes[end...end])
            let whole = try partialValue(Array(bytes[...end]))
            #expect(parser.value == whole, "after \(end + 1) bytes")
        }
        #expect(parser.text == document)
    }

    @Test(arguments: documents)
    func partialValuesOnlyGrowTowardsTheFinalValue(document: String) throws {
        // Every partial string is a prefix of the string it becomes.
        let bytes = Array(document.utf8)
        var parser = PartialJSONParser()
        var previous = ""
        for byte in bytes {
            try parser.append([byte])
            if case .string(let text)? = parser.value {
                #expect(text.hasPrefix(previous))
                previous = text
            }
        }
    }

    @Test func partialValuesKeptByTheCallerNeverChangeAfterwards() throws {
        // Reads share storage with the parser; later appends must copy, not mutate, what was handed out.
        let document = #"{"a":[1,{"b":"xyz"}],"c":"long string under way"}"#
        var parser = PartialJSONParser()
        var kept: [(JSONTree?, String)] = []
        for byte in document.utf8 {
            try parser.append([byte])
            let value = parser.value
            kept.append((value, value.map { "\($0)" } ?? "nil"))
        }
        for (value, rendered) in kept {
            #expect((value.map { "\($0)" } ?? "nil") == rendered)
        }
    }

    // MARK: Strings, escapes, UTF-8

    @Test func escapesAndMultiByteCharactersSplitAtEveryPairOfPlacesDecodeTheSame() throws {
        let document = #"["\u00e9\uD83D\uDE00\ud800x\\\"\/\b\f\n\r\t", "é中😀𐍈", "\udc00\ud83d"]"#
        let bytes = Array(document.utf8)
        let expected: JSONTree = ["é😀\u{FFFD}x\\\"/\u{08}\u{0C}\n\r\t", "é中😀𐍈", "\u{FFFD}\u{FFFD}"]
        for first in 0...bytes.count {
            for second in first...bytes.count {
                let pieces = [Array(bytes[..<first]), Array(bytes[first..<second]), Array(bytes[second...])]
                #expect(try run(pieces).final == expected, "cut at \(first), \(second)")
            }
        }
    }

    @Test func controlCharactersMayBeEscaped() throws {
        #expect(try run([Array(#""\u0000\u001f""#.utf8)]).final == "\u{0}\u{1F}")
    }

    // MARK: Numbers

    @Test(arguments: [
        ("-9223372036854775808", JSONTree.number(JSONNumber(Int64.min))),
        ("9223372036854775807", .number(JSONNumber(Int64.max))),
        ("123456789012345678901234567890", .number(JSONNumber(literal: "123456789012345678901234567890")!)),
        ("-0.5", -0.5),
        ("1.5e-7", 1.5e-7),
        ("2E+3", 2000.0),
        ("0", 0),
    ])
    func numbersKeepTheirExactValue(text: String, expected: JSONTree) throws {
        for chunking in Chunkings.all(of: Array("[\(text),\(text)]".utf8)) {
            #expect(try run(chunking.pieces).final == [expected, expected], "\(chunking)")
        }
        #expect(try run([Array(text.utf8)]).final == expected)
    }

    @Test func bigIntegersAreKeptAsText() throws {
        let value = try run([Array("[123456789012345678901234567890, 1e400]".utf8)]).final
        #expect(value[0]?.numberValue?.text == "123456789012345678901234567890")
        #expect(value[1]?.numberValue?.text == "1e400")
    }

    @Test func topLevelNumberCompletesAtWhitespaceOrFinish() throws {
        var parser = PartialJSONParser()
        try parser.append("12")
        #expect(!parser.isComplete)
        #expect(parser.value == 12)
        try parser.append("3")
        #expect(parser.value == 123)
        var copy = parser
        #expect(try copy.finish() == 123)
        try parser.append(" \n")
        #expect(parser.isComplete)
        #expect(try parser.finish() == 123)
    }

    @Test func trailingWhitespaceIsAllowed() throws {
        for chunking in Chunkings.all(of: Array("{\"a\":[1]} \n\t\r ".utf8)) {
            #expect(try run(chunking.pieces).final == ["a": [1]], "\(chunking)")
        }
    }

    @Test func completeValueIsReportedAsSoonAsItCloses() throws {
        var parser = PartialJSONParser()
        try parser.append(#"{"a":"b""#)
        #expect(!parser.isComplete)
        try parser.append("}")
        #expect(parser.isComplete)
        #expect(parser.value == ["a": "b"])
    }

    // MARK: Errors

    @Test(arguments: [
        (#"{"a" 1}"#, PartialJSONError.Kind.unexpectedByte, 5),
        ("]", .unexpectedByte, 0),
        ("[1,]", .unexpectedByte, 3),
        (#"{"a":1,}"#, .unexpectedByte, 7),
        ("{1:2}", .unexpectedByte, 1),
        ("[1}", .unexpectedByte, 2),
        (#"{"a":1]"#, .unexpectedByte, 6),
        ("[01]", .unexpectedByte, 2),
        (#""\x""#, .invalidEscape, 2),
        (#""\u12g4""#, .invalidEscape, 5),
        ("\"a\u{01}\"", .controlCharacterInString, 2),
        ("\"a\nb\"", .controlCharacterInString, 2),
        (#"{"a":1} x"#, .trailingData, 8),
        ("01", .trailingData, 1),
        ("1 2", .trailingData, 2),
        ("tru e", .invalidLiteral, 3),
        ("nul", .truncated, 3),
        ("-a", .invalidNumber, 1),
        ("1.e5", .invalidNumber, 2),
        ("[1e]", .invalidNumber, 3),
        ("", .truncated, 0),
        ("   ", .truncated, 3),
        (#"{"city":"Par"#, .truncated, 12),
        ("[1, 2", .truncated, 5),
        ("-", .truncated, 1),
    ])
    func invalidInputFailsAtItsOffsetForEveryChunking(text: String, kind: PartialJSONError.Kind, offset: Int) throws {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let error = failure(chunking.pieces)
            #expect(error?.kind == kind, "\(chunking): \(String(describing: error))")
            #expect(error?.byteOffset == offset, "\(chunking): \(String(describing: error))")
        }
    }

    @Test(
        arguments: [
            ([0x22, 0xFF, 0x22], 1),  // never valid in UTF-8
            ([0x22, 0xC3, 0x28, 0x22], 2),  // lead without continuation
            ([0x22, 0xC0, 0x80, 0x22], 1),  // overlong
            ([0x22, 0xE0, 0x80, 0x80, 0x22], 2),  // overlong 3-byte
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 2),  // encoded surrogate
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2),  // beyond U+10FFFF
            ([0x22, 0x80, 0x22], 1),  // stray continuation
            ([0x22, 0xE2, 0x82, 0x22], 3),  // truncated sequence
        ] as [([UInt8], Int)])
    func invalidUTF8FailsAtItsOffsetForEveryChunking(bytes: [UInt8], offset: Int) throws {
        for chunking in Chunkings.all(of: bytes) {
            let error = failure(chunking.pieces)
            #expect(error?.kind == .invalidUTF8, "\(chunking)")
            #expect(error?.byteOffset == offset, "\(chunking)")
        }
    }

    @Test func afterAnErrorEveryAppendThrowsTheSameError() throws {
        var parser = PartialJSONParser()
        try parser.append(#"{"a""#)
        var first: PartialJSONError?
        do { try parser.append(" 1}") } catch { first = error as? PartialJSONError }
        #expect(first?.kind == .unexpectedByte)
        #expect(first?.byteOffset == 5)
        #expect(throws: first!) { try parser.append("}") }
        #expect(throws: first!) { try parser.append("") }
        #expect(throws: first!) { try parser.finish() }
    }

    @Test func truncationNamesWhatIsMissing() throws {
        var parser = PartialJSONParser()
        try parser.append(#"{"list":[{"city":"Par"#)
        do {
            _ = try parser.finish()
            Issue.record("expected an error")
        } catch let error as PartialJSONError {
            #expect(error.kind == .truncated)
            #expect(error.byteOffset == 21)
            #expect(error.message.contains("unterminated string that starts at byte 17"))
            #expect(error.message.contains("missing '}' to close the object opened at byte 9"))
            #expect(error.message.contains("missing ']' to close the array opened at byte 8"))
            #expect(error.message.contains("missing '}' to close the object opened at byte 0"))
        }
    }

    /// The worked examples at the head of the parser's files (+StateMachine, +Strings, +Frame).
    @Test func theFileHeadersExamplesHold() throws {
        #expect(
            failure([Array("[1,tr".utf8)])?.message
                == "unexpected end of input: incomplete literal 'tr' at byte 3; "
                + "missing ']' to close the array opened at byte 0")
        var literal = PartialJSONParser()
        try literal.append("[1,tr")
        try literal.append("ue]")
        #expect(try literal.finish() == [1, true])

        var strings = PartialJSONParser()
        for piece in [Array(#""caf"#.utf8), [0xC3], [0xA9] + Array(#" \ud83d"#.utf8), Array(#"\ude00""#.utf8)] {
            try strings.append(piece)
        }
        #expect(try strings.finish() == .string("café 😀"))

        var frame = PartialJSONParser()
        try frame.append(#"{"a":1,"b":"x"#)
        #expect(frame.value == ["a": 1, "b": "x"])
        try frame.append(#"y"}"#)
        #expect(try frame.finish() == ["a": 1, "b": "xy"])
    }

    @Test func depthLimitIsEnforced() throws {
        var shallow = PartialJSONParser(maxDepth: 3)
        try shallow.append("[[{\"a\":1}]]")
        #expect(try shallow.finish() == [[["a": 1]]])

        let deep = PartialJSONParser(maxDepth: 3)
        let error = failure([Array("[[[[1]]]]".utf8)], parser: deep)
        #expect(error?.kind == .depthLimitExceeded)
        #expect(error?.byteOffset == 3)
    }

    @Test func millionOpenBracketsStopAtTheDefaultDepthWithBoundedMemory() throws {
        var parser = PartialJSONParser()
        let chunk = [UInt8](repeating: UInt8(ascii: "["), count: 4096)
        var thrown: PartialJSONError?
        for _ in 0..<(1_000_000 / 4096) {
            do { try parser.append(chunk) } catch {
                thrown = error as? PartialJSONError
                break
            }
        }
        #expect(thrown?.kind == .depthLimitExceeded)
        #expect(thrown?.byteOffset == 512)
        #expect(parser.stack.count == 512)
    }

    @Test func sizeLimitIsEnforced() throws {
        var fits = PartialJSONParser(maxBytes: 9)
        try fits.append(#"{"a":"b"}"#)
        #expect(try fits.finish() == ["a": "b"])

        for chunking in Chunkings.all(of: Array(#"{"a":"bc"}"#.utf8)) {
            let error = failure(chunking.pieces, parser: PartialJSONParser(maxBytes: 9))
            #expect(error?.kind == .sizeLimitExceeded, "\(chunking)")
            #expect(error?.byteOffset == 9, "\(chunking)")
        }
    }

    @Test func textKeepsTheRawInput() throws {
        var parser = PartialJSONParser()
        try parser.append(#"{"ci"#)
        try parser.append(Array(#"ty": "Pa"#.utf8))
        try parser.append(#"ris"}"#.utf8)
        #expect(parser.text == #"{"city": "Paris"}"#)
    }

    // MARK: Linear total work

    /// Work done feeding `document` one byte at a time and reading `value` after each byte:
    /// bytes run through the state machine plus nodes and member slots touched by the reads.
    private func workOfReadingAfterEveryByte(_ bytes: [UInt8]) throws -> (work: Int, storageChanges: Int) {
        var parser = PartialJSONParser()
        var work = 0
        var storageChanges = 0
        var lastStorage: UInt?
        for index in bytes.indices {
            try parser.append(bytes[index...index])
            let value = parser.value(countingWork: &work)
            #expect(value != nil || index == 0)
            if let storage = parser.stringStorageIdentity, parser.string.utf8.count > 32 {
                if storage != lastStorage { storageChanges += 1 }
                lastStorage = storage
            }
        }
        return (work + parser.bytesProcessed, storageChanges)
    }

    @Test func readingTheValueAfterEachOfManyOneByteDeltasIsLinear() throws {
        func document(_ length: Int) -> [UInt8] {
            Array(#"{"query":""#.utf8) + (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) } + Array(#""}"#.utf8)
        }
        let small = try workOfReadingAfterEveryByte(document(100_000))
        let large = try workOfReadingAfterEveryByte(document(200_000))
        // A constant amount of work per byte: a quadratic parser would do ~10^10 here.
        #expect(small.work < 10 * 100_000)
        #expect(Double(large.work) / Double(small.work) < 2.2)
        // The string under way is appended in place: its storage moves only when it grows
        // (geometrically), never copied per read.
        #expect(small.storageChanges < 40)
        #expect(large.storageChanges < 40)
    }

    @Test func readingTheValueOfNestedInputAfterEveryByteIsLinear() throws {
        let long = String(repeating: "é😀 x", count: 5_000)
        let text = #"{"a":{"b":[1,2,{"c":""# + long + #"","d":[true,null]}],"e":""# + long + #""}}"#
        let bytes = Array(text.utf8)
        let measured = try workOfReadingAfterEveryByte(bytes)
        #expect(measured.work < 20 * bytes.count)
        #expect(try run([bytes]).final == (try oracle(bytes)))
    }
}
