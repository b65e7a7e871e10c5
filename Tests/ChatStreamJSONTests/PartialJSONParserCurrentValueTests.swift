import TestSupport
import Testing

@testable import ChatStreamJSON

/// Documents whose prefixes cover every way a partial member is shown: appended last, in a
/// repeated key's place (and back to the old value when the partial number stops being one),
/// nested objects and arrays, strings with escapes and multi-byte characters, literals.
private let documents: [String] = [
    #"{"path":"docs/notes.md","mode":"overwrite","content":"one two \"three\"\n four"}"#,
    #"{"a":1,"b":2,"a":1.5e3,"c":[1,{"a":"x","a":"yz","a":-0.5}],"a":true,"d":{"e":{"f":[[],["g"]]}}}"#,
    #"[1,-2,3.5,[true,false,null],{"k":"é中😀\u00e9\ud83d\ude00"},"",{}]"#,
    #"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":"again","k18":[18]}"#,
    #""solo string""#, "  42  ", "-1.5e-3", "null", "[]", "{}",
]

@Suite("PartialJSONParser.currentValue")
struct PartialJSONParserCurrentValueTests {
    /// `currentValue()` after every piece equals `value` of a parser fed the same pieces, and
    /// `value` read after `currentValue()` (containers holding the partial members) agrees too.
    @Test(arguments: documents)
    func currentValueEqualsTheCopyingValueAtEveryChunking(document: String) throws {
        for chunking in Chunkings.all(of: Array(document.utf8)) {
            var inPlace = PartialJSONParser()
            var copying = PartialJSONParser()
            for piece in chunking.pieces {
                try inPlace.append(piece)
                try copying.append(piece)
                let expected = copying.value
                #expect(inPlace.currentValue() == expected, "\(chunking)")
                #expect(inPlace.value == expected, "\(chunking)")
                #expect(inPlace.currentValue() == expected, "read twice, \(chunking)")
            }
            #expect(try inPlace.finish() == (try copying.finish()), "\(chunking)")
        }
    }

    @Test(arguments: documents)
    func currentValueAfterEveryByteEqualsThePrefixParsedWhole(document: String) throws {
        let bytes = Array(document.utf8)
        var parser = PartialJSONParser()
        for end in bytes.indices {
            try parser.append(bytes[end...end])
            var whole = PartialJSONParser()
            try whole.append(Array(bytes[...end]))
            #expect(parser.currentValue() == whole.value, "after \(end + 1) bytes")
        }
        #expect(try parser.finish() == (try PartialJSONParser.parsedWhole(bytes)))
    }

    @Test func valuesKeptByTheCallerNeverChangeAfterwards() throws {
        // The containers are shared with the value handed out; a later append must copy them
        // while the caller keeps it, not change what the caller holds.
        for document in documents {
            var parser = PartialJSONParser()
            var kept: [(JSONTree?, String)] = []
            for byte in document.utf8 {
                try parser.append([byte])
                let value = parser.currentValue()
                kept.append((value, value.map { "\($0)" } ?? "nil"))
            }
            for (value, rendered) in kept {
                #expect((value.map { "\($0)" } ?? "nil") == rendered, "\(document)")
            }
        }
    }

    @Test func afterAnErrorTheLastValueStays() throws {
        var parser = PartialJSONParser()
        try parser.append(#"{"a":[1,"xy"#)
        let before = parser.currentValue()
        #expect(before == ["a": [1, "xy"]])
        #expect(throws: PartialJSONError.self) { try parser.append("\u{01}") }
        #expect(parser.currentValue() == before)
        #expect(parser.value == before)
        #expect(throws: PartialJSONError.self) { try parser.append("z") }
        #expect(throws: PartialJSONError.self) { try parser.finish() }
    }

    @Test func readsAfterEveryByteChangeTheContainersInPlace() throws {
        // Reading, dropping the value and appending leaves the open object's member list and the
        // string under way with one owner: their storage moves only when they grow.
        let length = 100_000
        let bytes =
            Array(#"{"path":"a.md","mode":"w","content":""#.utf8)
            + (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) } + Array(#""}"#.utf8)
        var parser = PartialJSONParser()
        var stringMoves = 0
        var membersMoves = 0
        var lastString: UInt?
        var lastMembers: UInt?
        for index in bytes.indices {
            try parser.append(bytes[index...index])
            if case .object(let object)? = parser.currentValue(), object.count == 3 {
                #expect(object.keys == ["path", "mode", "content"])
            }
            if let storage = parser.stringStorageIdentity, parser.string.utf8.count > 32 {
                if storage != lastString { stringMoves += 1 }
                lastString = storage
            }
            if let members = parser.stack.first?.object.values.withUnsafeBufferPointer({
                UInt(bitPattern: $0.baseAddress)
            }) {
                if members != lastMembers { membersMoves += 1 }
                lastMembers = members
            }
        }
        #expect(stringMoves < 40)
        #expect(membersMoves < 8)
        #expect(try parser.finish()["content"]?.stringValue?.utf8.count == length)
    }
}

extension PartialJSONParser {
    /// `bytes` parsed in one piece.
    fileprivate static func parsedWhole(_ bytes: [UInt8]) throws -> JSONTree {
        var parser = PartialJSONParser()
        try parser.append(bytes)
        return try parser.finish()
    }
}
