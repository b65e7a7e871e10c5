// The shared WHATWG conformance corpus (../shared/conformance/sse/cases.json), every case fed
// as recorded and under every chunking.
import ChatStreamFraming
import Foundation
import TestSupport
import Testing

struct SSECase: Sendable, CustomTestStringConvertible {
    let name: String
    let chunks: [[UInt8]]
    let events: [ServerSentEvent]
    let retry: Int?
    let comments: [String]?
    let generator: String?

    var testDescription: String { name }

    static let path = ProjectPaths.shared + "/conformance/sse/cases.json"

    /// The file's shape. (Decoded with `JSONDecoder`: on Linux, `JSONSerialization` drops a U+FEFF
    /// inside strings, which three BOM cases depend on.)
    private struct File: Decodable {
        struct Case: Decodable {
            struct Event: Decodable {
                let type: String
                let data: String
                let id: String
            }
            let name: String
            let chunks_b64: [String]
            let expect_events: [Event]
            let expect_retry: Int?
            let expect_comments: [String]?
            let generator: String?
        }
        let count: Int
        let cases: [Case]
    }

    private static func loadFile() -> File? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(File.self, from: data)
    }

    static let declaredCount = loadFile()?.count

    static let all: [SSECase] = (loadFile()?.cases ?? []).map { item in
        SSECase(
            name: item.name,
            chunks: item.chunks_b64.map { Array(Data(base64Encoded: $0) ?? Data()) },
            events: item.expect_events.map {
                ServerSentEvent(type: $0.type, data: $0.data, id: $0.id.isEmpty ? nil : $0.id)
            },
            retry: item.expect_retry, comments: item.expect_comments, generator: item.generator)
    }
}

/// The events without `retry`, which the corpus does not list per event.
private func comparable(_ events: [ServerSentEvent]) -> [ServerSentEvent] {
    events.map { ServerSentEvent(type: $0.type, data: $0.data, id: $0.id) }
}

@Suite("SSE conformance corpus")
struct ServerSentEventConformanceTests {
    @Test func corpusHasAllItsCases() {
        #expect(SSECase.declaredCount == 103)
        #expect(SSECase.all.count == 103)
        #expect(SSECase.all.filter { $0.generator == nil && $0.chunks.isEmpty }.isEmpty)
    }

    @Test(arguments: SSECase.all)
    func conformanceCase(_ testCase: SSECase) throws {
        if testCase.generator != nil {
            try largeMessage()
            return
        }
        let whole = testCase.chunks.flatMap { $0 }
        var runs = [("as recorded", testCase.chunks)]
        runs += Chunkings.all(of: whole).map { ($0.name, $0.pieces) }
        for (name, pieces) in runs {
            let outcome = try decodeSSE(pieces)
            #expect(comparable(outcome.events) == testCase.events, "chunking \(name)")
            if let retry = testCase.retry {
                #expect(outcome.reconnectionTime == retry, "chunking \(name)")
            }
            if let comments = testCase.comments {
                #expect(outcome.comments == comments, "chunking \(name)")
            }
        }
        #expect(comparable(try decodeSSEOwned(testCase.chunks)) == testCase.events)
    }

    /// The corpus's generator case: `data: ` + base64(5 MiB random) + blank line, whole and in two
    /// pieces (the first without a terminator), and in 64 KiB pieces, gives one event equal to the payload.
    private func largeMessage() throws {
        var generator = SplitMix64(seed: 42)
        var random = [UInt8](repeating: 0, count: 5 << 20)
        for index in random.indices { random[index] = UInt8(truncatingIfNeeded: generator.next()) }
        let payload = Data(random).base64EncodedString()
        let head = bytes("data: " + payload)
        let input = head + bytes("\n\n")
        let split = head.count / 2
        let sixtyFour = stride(from: 0, to: input.count, by: 1 << 16).map {
            Array(input[$0..<min(input.count, $0 + (1 << 16))])
        }
        for pieces in [[input], [Array(head[..<split]), Array(head[split...]) + bytes("\n\n")], sixtyFour] {
            let outcome = try decodeSSE(pieces)
            #expect(outcome.events.count == 1)
            #expect(outcome.events.first?.data == payload)
            #expect(outcome.end?.isTruncated == false)
        }
    }
}
