import ChatStreamJSON
import TestSupport
import Testing

@testable import ChatStream

/// The tool input built from path-addressed leaves (Gemini's `partialArgs`): its text must be the
/// JSON text of its value, written piece by piece in the order the leaves come.
@Suite(.blockingAllowed) struct PathAddressedInputTests {
    static func steps(_ path: String) throws -> [JSONPathStep] { try #require(JSONPathStep.steps(of: path)) }

    @Test func pathsOfMembersAndIndicesParseAndOthersDoNot() throws {
        #expect(try Self.steps("$") == [])
        #expect(try Self.steps("$.a.b[2]") == [.member("a"), .member("b"), .index(2)])
        #expect(try Self.steps("$['time zone'][0]") == [.member("time zone"), .index(0)])
        #expect(try Self.steps(#"$["it\"s"]"#) == [.member(#"it"s"#)])
        for bad in ["", "a.b", "$..a", "$[*]", "$.a[", "$[-1]", "$.", "$['open", "$[1", "$.a[b]"] {
            #expect(JSONPathStep.steps(of: bad) == nil, "\(bad)")
        }
    }

    @Test func leavesInDocumentOrderWriteTheValuesJSONTextPieceByPiece() throws {
        var input = PathAddressedInput()
        var pieces: [String] = []
        func set(_ path: String, _ leaf: JSONTree, continues: Bool = false) throws {
            pieces.append(input.set(try Self.steps(path), to: leaf, continues: continues))
        }
        try set("$.location", "San Fr", continues: true)
        try set("$.location", "ancisco \"CA\"")
        try set("$.units[0]", "celsius")
        try set("$.units[1]", "kel", continues: true)
        try set("$.units[1]", "vin", continues: true)
        try set("$.options.hourly", true)
        try set("$.options['time zone']", .null)
        try set("$.days", 3)
        pieces.append(input.finish())
        let text = pieces.joined()
        #expect(
            text
                == #"{"location":"San Francisco \"CA\"","units":["celsius","kelvin"],"options":{"hourly":true,"time zone":null},"days":3}"#
        )
        #expect(try JSONTree(parsing: text) == input.value)
        // Every prefix is the start of that text: the partial parser reads each without error.
        var parser = PartialJSONParser()
        for piece in pieces { try parser.append(piece) }
        #expect(try parser.finish() == input.value)
    }

    @Test func noLeafIsAnEmptyObject() {
        var input = PathAddressedInput()
        #expect(input.finish() == "{}")
        #expect(input.value == .object(JSONObject()))
    }

    @Test func leavesOutOfDocumentOrderStopTheTextButTheValueIsExact() throws {
        var input = PathAddressedInput()
        var text = ""
        text += input.set(try Self.steps("$.a.x"), to: 1, continues: false)
        text += input.set(try Self.steps("$.b"), to: 2, continues: false)
        #expect(input.isWritingText)
        // Back into `a`, closed already; then an index that skips one.
        text += input.set(try Self.steps("$.a.y"), to: 3, continues: false)
        #expect(!input.isWritingText)
        text += input.set(try Self.steps("$.c[1]"), to: "z", continues: false)
        text += input.finish()
        #expect(text == #"{"a":{"x":1},"b":2"#)
        #expect(input.value == ["a": ["x": 1, "y": 3], "b": 2, "c": [nil, "z"]])
    }

    @Test func theSameLeafSetTwiceKeepsTheLastValue() throws {
        var input = PathAddressedInput()
        _ = input.set(try Self.steps("$.q"), to: "one", continues: false)
        _ = input.set(try Self.steps("$.q"), to: "two", continues: false)
        #expect(!input.isWritingText)
        #expect(input.value == ["q": "two"])
    }
}
