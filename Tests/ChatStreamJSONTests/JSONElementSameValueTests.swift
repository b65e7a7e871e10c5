import Foundation
import TestSupport
import Testing

@testable import ChatStreamJSON

@Suite struct JSONElementSameValueTests {
    /// `text`'s element compared with `other`'s tree, and the two trees compared.
    static func compare(_ text: String, _ other: String) throws -> (surely: Bool, trees: Bool) {
        let parser = JSONParser()
        let tree = try parser.parseValue(other.utf8)
        return try parser.parse(Array(text.utf8)) { ($0.surelyEquals(tree), $0.jsonValue == tree) }
    }

    @Test(arguments: [
        #"{"promptTokenCount":9,"details":[{"modality":"TEXT","tokenCount":9}]}"#,
        #"[null,true,false,-2,1.5e3,"x\u00e9"]"#, #""""#, #"{}"#, #"[]"#,
    ])
    func anElementSurelyEqualsTheSameValue(_ text: String) throws {
        let result = try Self.compare(text, text)
        #expect(result.surely)
        #expect(result.trees)
    }

    @Test(arguments: [
        // Trees differ, and so must the answer.
        (#"{"a":1}"#, #"{"a":2}"#, false), (#"{"a":1}"#, #"{"b":1}"#, false), (#"{"a":1}"#, #"{"a":1,"b":2}"#, false),
        (#"[1,[2,3]]"#, #"[1,[2,4]]"#, false), (#"[1]"#, #"[1,1]"#, false), (#""x""#, #""y""#, false),
        (#"true"#, #"false"#, false), (#"null"#, #"0"#, false),
        (#"{"a":[{"b":null}]}"#, #"{"a":[{"b":false}]}"#, false),
        // Trees equal, but not surely by the walk: keys in another order, canonically equal
        // strings with other bytes, a repeated key.
        (#"{"a":1,"b":2}"#, #"{"b":2,"a":1}"#, true), (#""é""#, #""é""#, true),
        (#"{"a":0,"a":1}"#, #"{"a":1}"#, true),
    ])
    func theWalkNeverClaimsMoreThanItCanSee(_ text: String, _ other: String, _ treesEqual: Bool) throws {
        let result = try Self.compare(text, other)
        #expect(!result.surely)
        #expect(result.trees == treesEqual)
    }

    /// Every pair of JSONTestSuite's accepted files: a true answer always agrees with the trees,
    /// and a file surely equals its own tree unless it repeats a key.
    @Test func overJSONTestSuiteATrueAnswerAgreesWithTheTrees() throws {
        let directory = ProjectPaths.shared + "/conformance/JSONTestSuite/test_parsing"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("y_") }
            .sorted()
        #expect(names.count == 95)
        let parser = JSONParser()
        let texts = names.map { Array(FileManager.default.contents(atPath: directory + "/" + $0) ?? Data()) }
        let trees = try texts.map { try parser.parseValue($0) }
        var surelyEqualPairs = 0
        for (index, text) in texts.enumerated() {
            try parser.parse(text) { element in
                #expect(
                    element.surelyEquals(trees[index]) == !names[index].contains("duplicated_key"), "\(names[index])")
                for (otherIndex, other) in trees.enumerated() where element.surelyEquals(other) {
                    surelyEqualPairs += 1
                    #expect(trees[index] == other, "\(names[index]) and \(names[otherIndex])")
                }
            }
        }
        #expect(surelyEqualPairs > names.count)  // the files themselves, and some equal pairs
    }
}
