import Foundation
import TestSupport
import Testing

/// `chatstream replay`, run as a process: the contract other tools rely on.
@Suite struct ReplayCLITests {
    typealias Run = ChildProcess.Result

    /// Runs `chatstream arguments...` with `stdin` (default: none) on its standard input.
    static func run(_ arguments: [String], stdin: Data? = nil) async throws -> Run {
        try await ChildProcess.run(arguments, stdin: stdin.map { Array($0) } ?? [])
    }

    static let fixture = ProjectPaths.fixtures + "/ui-message-stream/"

    @Test func messageJSONIsByteIdenticalForEveryChunkSize() async throws {
        let reference = try await Self.run(["replay", "--json", Self.fixture + "multibyte.sse"])
        #expect(reference.status == 0)
        #expect(reference.stdout.contains("日本語のテキスト"))
        for size in ["1", "2", "3", "7", "64", "65536"] {
            let run = try await Self.run([
                "replay", "--chunk-size", size, "--output", "message", "--json", Self.fixture + "multibyte.sse",
            ])
            #expect(run.stdout == reference.stdout, "chunk size \(size)")
        }
    }

    @Test func eventsAndTextOutputsAreIndependentOfChunkSize() async throws {
        for output in ["events", "text"] {
            let whole = try await Self.run([
                "replay", "--output", output, "--json", Self.fixture + "tool-round-trip.sse",
            ])
            let bytewise = try await Self.run(
                ["replay", "--output", output, "--json", "--chunk-size", "1", Self.fixture + "tool-round-trip.sse"])
            #expect(whole.status == 0)
            #expect(whole.stdout == bytewise.stdout)
        }
        let events = try await Self.run([
            "replay", "--output", "events", "--json", Self.fixture + "tool-round-trip.sse",
        ])
        let lines = events.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("{\"type\":") })
        #expect(lines.last == "{\"type\":\"done\"}")
    }

    @Test func exitStatusesFollowTheContract() async throws {
        #expect(try await Self.run(["replay", Self.fixture + "text-only.sse"]).status == 0)
        let truncated = try await Self.run(["replay", "--json", Self.fixture + "truncated.sse"])
        #expect(truncated.status == 1)
        #expect(truncated.stdout.contains("This reply was cut"))
        #expect(try await Self.run(["replay", "--json", Self.fixture + "chatbase-error.sse"]).status == 1)
        let malformed = try await Self.run(["replay", "--json", Self.fixture + "malformed.sse"])
        #expect(malformed.status == 65)
        #expect(malformed.stdout.contains("\"before\""))
        #expect(malformed.stderr.contains("byte"))
        #expect(try await Self.run(["replay", "--output", "bogus", Self.fixture + "text-only.sse"]).status == 2)
        #expect(try await Self.run(["replay", "--format", "nope", Self.fixture + "text-only.sse"]).status == 2)
        #expect(try await Self.run(["replay"]).status == 2)
        #expect(try await Self.run(["replay", "--chunk-size", "0", Self.fixture + "text-only.sse"]).status == 2)
    }

    @Test func readsStandardInputAndAnExplicitFormat() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixture + "text-only.sse"))
        let run = try await Self.run(["replay", "--format", "ui-message-stream", "--output", "text", "-"], stdin: data)
        #expect(run.status == 0)
        #expect(run.stdout == "Hello, how can I help?\n")
    }
}
