import Foundation
import TestSupport
import Testing

/// `chatstream replay`, run as a process: the contract other tools rely on.
@Suite(.blockingAllowed) struct ReplayCLITests {
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

    @Test func messageJSONKeepsWhatTheToolEventsCarry() async throws {
        // A provider-run call, a call the client runs, and one whose input failed (issue 18).
        let lines = [
            #"{"type":"start","messageId":"m1"}"#,
            #"{"type":"tool-input-start","toolCallId":"s1","toolName":"web_search","providerExecuted":true}"#,
            #"{"type":"tool-input-available","toolCallId":"s1","toolName":"web_search","input":{"q":"x"}}"#,
            #"{"type":"tool-input-start","toolCallId":"c1","toolName":"get_weather"}"#,
            #"{"type":"tool-input-available","toolCallId":"c1","toolName":"get_weather","input":{"city":"Paris"}}"#,
            #"{"type":"tool-input-start","toolCallId":"e1","toolName":"broken"}"#,
            #"{"type":"tool-input-error","toolCallId":"e1","toolName":"broken","errorText":"bad input"}"#,
            #"{"type":"finish","finishReason":"tool-calls"}"#,
        ]
        let stream = lines.map { "data: \($0)\n\n" }.joined() + "data: [DONE]\n\n"
        for size in ["1", "65536"] {
            let run = try await Self.run(
                [
                    "replay", "--format", "ui-message-stream", "--chunk-size", size, "--output", "message", "--json",
                    "-",
                ],
                stdin: Data(stream.utf8))
            #expect(run.status == 0, "\(run)")
            let message = try #require(run.lines.first.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) })
            let parts = try #require((message as? [String: Any])?["parts"] as? [[String: Any]])
            #expect(parts.count == 3, "\(run)")
            guard parts.count == 3 else { continue }
            #expect(parts[0]["toolCallId"] as? String == "s1")
            #expect(parts[0]["providerExecuted"] as? Bool == true)
            #expect(parts[1]["toolCallId"] as? String == "c1")
            #expect(parts[1]["providerExecuted"] == nil)  // the client runs it: no key, as before
            #expect(parts[1]["state"] == nil)
            #expect(parts[2]["state"] as? String == "error")
            #expect(parts[2]["errorText"] as? String == "bad input")
        }
    }
}
