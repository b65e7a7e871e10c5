import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// `chatstream replay --format salesforce-messaging|live-events`, run as a process.
@Suite struct LiveReplayCLITests {
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
}
