import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// Decodes a whole stream in the given pieces, event by event into a MessageAssembler, and
/// returns the messages and the error, if any.
func assembleEventByEvent(
    _ decoder: inout some StreamEventDecoding, _ pieces: [[UInt8]]
) -> (messages: [AssembledMessage], failure: StreamError?) {
    var assembler = MessageAssembler()
    var failure: StreamError? = nil
    do {
        for piece in pieces {
            try decoder.feed(piece, into: &assembler)
        }
        try decoder.finish(into: &assembler)
    } catch {
        failure = StreamError(converting: error)
    }
    return (assembler.finish(error: failure), failure)
}

/// Decodes a whole stream in the given pieces and returns the assembled messages as the
/// `--output message --json` lines, plus the error, if any.
func replay(_ pieces: [[UInt8]], format: StreamFormat?) -> (lines: [String], error: StreamError?) {
    var decoder = AnyStreamDecoder(format: format)
    let result = assembleEventByEvent(&decoder, pieces)
    return (result.messages.map(\.jsonValue.jsonText), result.failure)
}

/// The hand-written home-protocol fixtures, each beside its expected `--output message --json`.
@Suite(.blockingAllowed) struct FixtureGoldenTests {
    static let directory = ProjectPaths.fixtures + "/ui-message-stream"
    static let names: [String] = {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".sse") }.map { String($0.dropLast(4)) }.sorted()
    }()

    @Test func fixturesArePresent() {
        #expect(Self.names.count >= 12)
    }

    @Test(arguments: names)
    func fixtureMatchesItsExpectedMessageAtEveryChunking(_ name: String) throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/\(name).sse")))
        let expected = try String(contentsOfFile: Self.directory + "/\(name).expected.json", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        for chunking in Chunkings.all(of: input) {
            for format in [StreamFormat.uiMessageStream, nil] {
                let result = replay(chunking.pieces, format: format)
                #expect(result.lines == expected, "\(name) \(chunking) format \(String(describing: format))")
            }
        }
    }

    @Test func truncatedFixtureKeepsItsPartialTextAndSaysSo() throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/truncated.sse")))
        let result = replay([input], format: .uiMessageStream)
        #expect(result.error?.kind == .truncated)
        #expect(result.lines.first?.contains("This reply was cut ") == true)
    }

    @Test func malformedFixtureNamesTheByteOffset() throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/malformed.sse")))
        let result = replay([input], format: .uiMessageStream)
        #expect(result.error?.kind == .malformed)
        let third = input.indices.filter { input[$0] == UInt8(ascii: "\n") }[3] + 1  // start of the 3rd event
        #expect((result.error?.byteOffset ?? 0) >= third)
        #expect(result.lines.first?.contains("\"before\"") == true)
    }

    @Test func lenientModeSkipsTheMalformedEventAndReportsIt() throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/malformed.sse")))
        var decoder = StreamDecoder<UIMessageStreamDialect>(configuration: StreamDecoderConfiguration(lenient: true))
        var events = try decoder.feed(input)
        events += try decoder.finish()
        #expect(decoder.skippedErrors.count == 1)
        #expect(events.contains(.finish(reason: .stop, rawReason: "stop")))
        #expect(events.last == .done)
    }
}
