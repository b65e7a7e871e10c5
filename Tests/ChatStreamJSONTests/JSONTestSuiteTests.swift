import Foundation
import TestSupport
import Testing

@testable import ChatStreamJSON

/// nst/JSONTestSuite, read in place from ../shared: every `y_` accepted, every `n_` rejected,
/// every `i_` answered without a crash.
@Suite struct JSONTestSuiteTests {
    static let directory = ProjectPaths.shared + "/conformance/JSONTestSuite/test_parsing"

    static let files: [String] = {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }
            .sorted()
    }()

    static func bytes(_ name: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: directory + "/" + name) ?? Data())
    }

    @Test func suiteIsPresentAndComplete() {
        #expect(Self.files.count == 318)
        #expect(Self.files.filter { $0.hasPrefix("y_") }.count == 95)
        #expect(Self.files.filter { $0.hasPrefix("n_") }.count == 188)
    }

    @Test(arguments: files.filter { $0.hasPrefix("y_") })
    func acceptsEveryYes(_ name: String) throws {
        let parser = JSONParser()
        let value = try parser.parseValue(Self.bytes(name))
        // The same parser, reused, gives the same value again.
        #expect(try parser.parseValue(Self.bytes(name)) == value)
    }

    @Test(arguments: files.filter { $0.hasPrefix("n_") })
    func rejectsEveryNo(_ name: String) throws {
        let parser = JSONParser()
        let error = #expect(throws: JSONError.self) { try parser.parseValue(Self.bytes(name)) }
        #expect((error?.byteOffset ?? -1) >= 0)
        // After an error the parser still works.
        #expect(try parser.parseValue(Array("[1]".utf8)) == [1])
    }

    @Test(arguments: files.filter { $0.hasPrefix("i_") })
    func answersEveryImplementationDefinedWithoutCrashing(_ name: String) throws {
        let parser = JSONParser()
        _ = try? parser.parseValue(Self.bytes(name))
        #expect(try parser.parseValue(Array("{}".utf8)) == .object(JSONObject()))
    }

    @Test func formFeedIsNotWhitespace() throws {
        #expect(throws: JSONError.self) { try JSONParser().parseValue(Array("[\u{0C}]".utf8)) }
        #expect(throws: JSONError.self) { try JSONParser().parseValue(Array("[1,\u{0B}2]".utf8)) }
    }
}

/// The same suite fed one byte at a time through the push parser.
@Suite struct JSONTestSuiteBytewiseTests {
    static func parseBytewise(_ bytes: [UInt8]) throws -> [JSONTree] {
        var stream = JSONStreamParser()
        var values: [JSONTree] = []
        for byte in bytes { values += try stream.feed([byte]) }
        values += try stream.finish()
        return values
    }

    @Test(arguments: JSONTestSuiteTests.files.filter { $0.hasPrefix("y_") })
    func acceptsEveryYesOneByteAtATime(_ name: String) throws {
        let bytes = JSONTestSuiteTests.bytes(name)
        #expect(try Self.parseBytewise(bytes) == [try JSONParser().parseValue(bytes)])
    }

    @Test(arguments: JSONTestSuiteTests.files.filter { $0.hasPrefix("n_") })
    func rejectsEveryNoOneByteAtATime(_ name: String) throws {
        // A stream may hold several values; one value exactly is what a `n_` file must fail to be.
        let values = try? Self.parseBytewise(JSONTestSuiteTests.bytes(name))
        #expect(values == nil || values!.count != 1, "\(name) gave \(String(describing: values))")
    }

    @Test(arguments: JSONTestSuiteTests.files.filter { $0.hasPrefix("i_") })
    func answersEveryImplementationDefinedOneByteAtATimeAsItDoesWhole(_ name: String) {
        // Either answer is allowed, but the push parser must give the same one as a whole parse.
        let bytes = JSONTestSuiteTests.bytes(name)
        let whole = try? JSONParser().parseValue(bytes)
        let bytewise = try? Self.parseBytewise(bytes)
        if let whole {
            #expect(bytewise == [whole], "\(name)")
        } else {
            #expect(bytewise == nil || bytewise!.count != 1, "\(name) gave \(String(describing: bytewise))")
        }
    }
}
