import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// The vendor corpus in `Fixtures/vendor-streams/<format>/`: streams recorded from other SDKs'
/// test cassettes (see SOURCE.txt there) and hand-written ones for the shapes no recording had,
/// each beside its expected `--output message --json` lines.
@Suite(.blockingAllowed) struct VendorStreamTests {
    static let directory = ProjectPaths.fixtures + "/vendor-streams"

    /// Every stream: its format (the folder), its path and name.
    static let streams: [VendorStream] = {
        var result: [VendorStream] = []
        for format in StreamFormat.allCases {
            let folder = directory + "/" + format.rawValue
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            for file in files where !file.hasSuffix(".expected.json") {
                result.append(VendorStream(format: format, path: folder + "/" + file))
            }
        }
        return result
    }()

    @Test func theCorpusHasThirtyRecordedStreamsFromTenVendorsAndAHandWrittenOneForEveryFormat() {
        let recorded = Self.streams.filter { !$0.isHandWritten }
        #expect(recorded.count >= 30)
        #expect(Set(recorded.map(\.vendor)).count >= 10)
        for format in StreamFormat.allCases {
            #expect(Self.streams.contains { $0.format == format }, "no stream of \(format)")
        }
    }

    @Test(arguments: streams)
    func streamMatchesItsExpectedMessageAtEveryChunking(_ stream: VendorStream) throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: stream.path)))
        let expected = try String(contentsOfFile: stream.expectedPath, encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(!expected.isEmpty)
        for chunking in Chunkings.all(of: input, seeds: [1, 2]) {
            let result = replay(chunking.pieces, format: stream.format)
            #expect(result.lines == expected, "\(stream) \(chunking)")
        }
        // Detected from the bytes, the stream decodes the same.
        let detected = replay([input], format: nil)
        #expect(detected.lines == expected, "\(stream) detected")
    }

    @Test(arguments: streams)
    func everyChoiceHasOneFinishAfterItsLastContent(_ stream: VendorStream) throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: stream.path)))
        var decoder = stream.format.makeDecoder()
        var events: [StreamEvent] = []
        var failed = false
        do {
            try decoder.feed(input, into: &events)
            try decoder.finish(into: &events)
        } catch {
            failed = true
        }
        #expect(OneFinish.violations(events, complete: !failed).isEmpty, "\(stream)")
    }
}

/// One stream of the vendor corpus.
struct VendorStream: Sendable, CustomTestStringConvertible {
    let format: StreamFormat
    let path: String

    var name: String { String(path.split(separator: "/").last ?? "") }
    /// `vendor__what.ext` names the vendor; hand-written streams are `handwritten__what.ext`.
    var vendor: String { String(name.components(separatedBy: "__").first ?? name) }
    var isHandWritten: Bool { vendor == "handwritten" }
    var expectedPath: String {
        let base = path[..<(path.lastIndex(of: ".") ?? path.endIndex)]
        return base + ".expected.json"
    }
    var testDescription: String { "\(format.rawValue)/\(name)" }
}

/// The one-finish invariant: per choice and message (a `.done` ends a message), at most one
/// `finish`, no content after it, and, when the stream completed, one `finish` for every
/// choice that had content.
enum OneFinish {
    static func violations(_ events: [StreamEvent], complete: Bool) -> [String] {
        var problems: [String] = []
        var choice = 0
        var finished: Set<Int> = []
        var content: Set<Int> = []
        for (position, event) in events.enumerated() {
            switch event {
            case .choice(let index): choice = index
            case .finish:
                if finished.contains(choice) { problems.append("a second finish for choice \(choice) at \(position)") }
                finished.insert(choice)
            case .messageStart:
                finished = []
                content = []
                choice = 0
            case .done:
                if complete {
                    for k in content.subtracting(finished) { problems.append("choice \(k) had no finish before done") }
                }
                finished = []
                content = []
                choice = 0
            case .textStart, .textDelta, .reasoningStart, .reasoningDelta, .refusalDelta, .toolCallStart,
                .toolInputDelta, .toolInputAvailable, .toolInputError, .file, .source:
                if finished.contains(choice) {
                    problems.append("content for choice \(choice) after its finish at \(position): \(event)")
                }
                content.insert(choice)
            default: break
            }
        }
        return problems
    }
}
