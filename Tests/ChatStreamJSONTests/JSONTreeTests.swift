import Foundation
import Testing

@testable import ChatStreamJSON

/// JSON string escaping spelled out byte by byte, the rule the writer's tests check against.
private func spelledOutEscape(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var output: [UInt8] = []
    for byte in bytes {
        switch byte {
        case 0x22: output += #"\""#.utf8
        case 0x5C: output += #"\\"#.utf8
        case 0x0A: output += #"\n"#.utf8
        case 0x0D: output += #"\r"#.utf8
        case 0x09: output += #"\t"#.utf8
        case ..<0x20: output += String(format: #"\u%04x"#, Int(byte)).utf8
        default: output.append(byte)
        }
    }
    return output
}

@Suite struct JSONValueTests {
    @Test func objectEqualityIgnoresOrderButIterationKeepsIt() {
        let a: JSONTree = ["x": 1, "y": 2]
        let b: JSONTree = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.objectValue?.keys == ["x", "y"])
        #expect(a != ["x": 1, "y": 3])
    }

    @Test func numbersCompareByValue() {
        #expect(JSONTree.number(JSONNumber(1)) == .number(JSONNumber(1.0)))
        #expect(Set([JSONTree.number(JSONNumber(1)), .number(JSONNumber(1.0))]).count == 1)
        #expect(JSONTree.number(JSONNumber(1)) != .number(JSONNumber(1.5)))
    }

    @Test func serializationEscapesAndRoundTrips() throws {
        let value: JSONTree = ["t": "a\"b\\c\n\u{01}é😀", "n": [1, 2.5, nil, true]]
        let text = value.jsonText
        #expect(text == #"{"t":"a\"b\\c\n\u0001é😀","n":[1,2.5,null,true]}"#)
        #expect(try JSONTree(parsing: text) == value)
    }

    /// Every byte below 0x80 alone, at either end of a run, next to another escape, and in a
    /// bridged (non-native) string, against the escaping spelled out byte by byte.
    @Test func everyASCIIByteIsWrittenAsSpelledOut() throws {
        func expected(_ string: String) -> String {
            String(decoding: [0x22] + spelledOutEscape(string.utf8) + [0x22], as: UTF8.self)
        }
        for byte in UInt8(0)..<0x80 {
            let character = String(Unicode.Scalar(byte))
            for string in [character, "ab" + character, character + "cd", "é" + character + character + "é", ""] {
                var output: [UInt8] = [0x2A]
                JSONTree.writeString(string, to: &output)
                #expect(String(decoding: output, as: UTF8.self) == "*" + expected(string), "byte \(byte)")
                let bridged = NSString(string: string + "ü") as String
                #expect(JSONTree.string(bridged).jsonText == expected(string + "ü"), "byte \(byte), bridged")
                #expect(try JSONTree(parsing: JSONTree.string(string).jsonText) == .string(string))
            }
        }
    }

    /// The escaping of raw bytes against the byte-by-byte rule, with every byte value at every
    /// position of buffers long enough for the eight-byte path (bytes from 0x80 up, which that
    /// path must pass, around it), and random buffers of every length up to 40.
    @Test func escapingFindsEveryByteWhereverItFallsInAWord() {
        func expected(_ bytes: [UInt8]) -> [UInt8] { spelledOutEscape(bytes) }
        func escaped(_ bytes: [UInt8]) -> [UInt8] {
            var output: [UInt8] = []
            bytes.withUnsafeBufferPointer { JSONTree.writeEscaped($0, to: &output) }
            return output
        }
        let filler: [UInt8] = [0x61, 0xC3, 0xA9, 0x7F, 0x80, 0xFF, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E]
        for length in [8, 9, 17, 24] {
            for position in 0..<length {
                for value in UInt8.min...UInt8.max {
                    var bytes = (0..<length).map { filler[$0 % filler.count] }
                    bytes[position] = value
                    #expect(escaped(bytes) == expected(bytes), "byte \(value) at \(position) of \(length)")
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x00, 0x09, 0x0A, 0x1F, 0x22, 0x5C, 0x41, 0x20, 0x7F, 0x80, 0xE2, 0xFF]
        for length in 0...40 {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
                #expect(escaped(bytes) == expected(bytes), "\(bytes)")
            }
        }
    }

    @Test func codableRoundTripsThroughFoundation() throws {
        let value: JSONTree = ["a": [1, -2.5, "s", nil, false], "b": ["c": 9_007_199_254_740_993]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONTree.self, from: data) == value)
        #expect(try JSONTree(parsing: Array(data)) == value)
    }

    @Test func bigIntegersEncodeExactly() throws {
        let value = try JSONTree(parsing: "[123456789012345678901234567890]")
        let data = try JSONEncoder().encode(value)
        #expect(String(decoding: data, as: UTF8.self) == "[123456789012345678901234567890]")
    }

    @Test func literalInitializersBuildTheExpectedCases() {
        let value: JSONTree = ["s": "x", "i": 1, "d": 1.5, "b": true, "n": nil, "a": [1]]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.intValue == 1)
        #expect(value["d"]?.doubleValue == 1.5)
        #expect(value["b"]?.boolValue == true)
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?[0] == 1)
    }
}

@Suite struct JSONKeyIdentityTests {
    /// JSON keys are byte strings: canonically equivalent spellings are two keys (found by FuzzJSON).
    @Test func canonicallyEquivalentKeysStayDistinct() throws {
        let composed = "\u{00E9}"
        let decomposed = "e\u{0301}"
        let text = "{\"\(composed)\":1,\"\(decomposed)\":2}"
        let value = try JSONTree(parsing: text)
        #expect(value.objectValue?.count == 2)
        #expect(value[composed] == 1)
        #expect(value[decomposed] == 2)
        let many =
            "{" + (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"\(composed)\":1,\"\(decomposed)\":2}"
        #expect(try JSONTree(parsing: many).objectValue?.count == 22)
        var partial = PartialJSONParser()
        try partial.append(many)
        #expect(partial.value?.objectValue?.count == 22)
        try JSONParser().parse(Array(text.utf8)) { root in
            #expect(root[named: composed]?.int == 1)
            #expect(root[named: decomposed]?.int == 2)
        }
    }
}
