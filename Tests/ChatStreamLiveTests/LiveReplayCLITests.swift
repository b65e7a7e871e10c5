import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamLive

/// `chatstream replay --format salesforce-messaging|live-events`, run as a process.
@Suite(.blockingAllowed) struct LiveReplayCLITests {
    @Test(arguments: [("salesforce-messaging", "salesforce-all-types"), ("live-events", "home-all-types")])
    func replayPrintsTheFixturesExpectedEvents(_ format: String, _ name: String) async throws {
        let directory = ProjectPaths.fixtures + "/live-events/"
        let run = try await ChildProcess.run(["replay", "--format", format, "--json", directory + name + ".sse"])
        #expect(run.status == 0)
        let lines = try run.stdout.split(separator: "\n").map { try JSONTree(parsing: String($0)) }
        let expected = try String(contentsOfFile: directory + name + ".expected.jsonl", encoding: .utf8)
            .split(separator: "\n").map { try JSONTree(parsing: String($0)) }
        #expect(lines == expected)
        #expect(run.stderr.contains("of unknown types skipped"))
    }

    @Test(arguments: [1, 7, 64, 4096])
    func replayDecodesEverySalesforceShapeAtAnyChunkSize(_ size: Int) async throws {
        let directory = ProjectPaths.fixtures + "/live-events/"
        let run = try await ChildProcess.run([
            "replay", "--format", "salesforce-messaging", "--json", "--chunk-size", "\(size)",
            directory + "salesforce-all-types.sse",
        ])
        #expect(run.status == 0)
        let lines = try run.stdout.split(separator: "\n").map { try JSONTree(parsing: String($0)) }
        let expected = try String(contentsOfFile: directory + "salesforce-all-types.expected.jsonl", encoding: .utf8)
            .split(separator: "\n").map { try JSONTree(parsing: String($0)) }
        #expect(lines == expected, "chunk size \(size)")
    }

    @Test func replayPrintsEverySalesforceShapeWithItsTextOnOneLineEach() async throws {
        let file = ProjectPaths.fixtures + "/live-events/salesforce-all-types.sse"
        let run = try await ChildProcess.run(["replay", "--format", "salesforce-messaging", file])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 34)
        #expect(lines.allSatisfy { $0.hasPrefix("20") })
        for expected in [
            "queue.position 7c4e2a91-3b5d-4f68-9a0e-1d2c3b4a5f60 position 3",
            "user: Where is my order? \u{e9}\u{4e2d}\u{1F600} \"quoted\"\\n",
            "progress 7c4e2a91-3b5d-4f68-9a0e-1d2c3b4a5f60 Calling agent action: Look up order status",
            "#2 +ships", "agent: Your order ships tomorrow. (completes the stream)",
            "agent: Anything else I can help with? [Change delivery address] [Talk to a person]",
            "user: Talk to a person", "agent: Express\\nStandard [Express] [Standard]",
            "human_agent: Here is the label (file label.pdf https://example.my.salesforce-scrt.com/files/label.pdf)",
            "agent: Here are your open cases.", "Dana (Support) joined Dana changed Agentforce left",
            "routing.work_result 7c4e2a91-3b5d-4f68-9a0e-1d2c3b4a5f60 Accepted", "client.menu",
        ] {
            #expect(lines.contains { $0.hasSuffix(expected) || $0.contains(expected) }, "\(expected)")
        }
        #expect(run.stderr.contains("34 events, 1 of unknown types skipped, 0 malformed skipped"))
    }

    @Test func replayReportsEachHostileSalesforceEventAndKeepsTheRest() async throws {
        let file = ProjectPaths.fixtures + "/live-events/salesforce-malformed.sse"
        let run = try await ChildProcess.run(["replay", "--format", "salesforce-messaging", file])
        #expect(run.status == 0)
        #expect(run.stdout == "1 message.created c-1 agent: before\n13 conversation.closed c-1\n")
        #expect(
            run.stderr.contains(
                "skipped: event CONVERSATION_QUEUE_POSITION at byte 2097: field conversationEntry.entryPayload.position"
            ))
        #expect(run.stderr.contains("2 events, 0 of unknown types skipped, 11 malformed skipped"))
    }
}
