import Foundation
import TestSupport
import Testing

/// `chatstream replay --output text` and plain `--output message`, run as a process: text is
/// written whole (a U+0000 in it too), and several choices are printed one after the other.
@Suite(.blockingAllowed) struct ReplayTextOutputTests {
    static func run(_ arguments: [String], stdin: String) async throws -> ChildProcess.Result {
        try await ChildProcess.run(arguments, stdin: Array(stdin.utf8))
    }

    static let withNUL = #"""
        data: {"type":"start"}

        data: {"type":"text-delta","id":"t","delta":"before\u0000after"}

        data: {"type":"finish"}

        data: [DONE]


        """#

    @Test func textAfterANULIsWrittenInTextAndMessageOutput() async throws {
        for output in ["text", "message"] {
            let run = try await Self.run(["replay", "--output", output, "-"], stdin: Self.withNUL)
            #expect(run.status == 0)
            #expect(run.stdout.contains("before\u{0}after"), "\(output): \(Array(run.stdout.utf8))")
        }
    }

    static let twoChoices = #"""
        data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Zero "}},{"index":1,"delta":{"content":"One "}}]}

        data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":1,"delta":{"content":"more"},"finish_reason":"stop"}]}

        data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"text"},"finish_reason":"stop"}]}

        data: [DONE]


        """#

    @Test func severalChoicesArePrintedInOrderEachLabelledNotInterleaved() async throws {
        for size in ["1", "7", "65536"] {
            let run = try await Self.run(
                ["replay", "--format", "openai-chat", "--output", "text", "--chunk-size", size, "-"],
                stdin: Self.twoChoices)
            #expect(run.status == 0)
            #expect(run.stdout == "Zero text\n\n[choice 1]\nOne more\n", "chunk size \(size)")
        }
    }

    @Test func anErrorBodyExitsOneWithTheProvidersCodeAndMessage() async throws {
        let body =
            "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"API key not valid.\",\n"
            + "    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n"
        for format in ["auto", "json-array", "openai-chat", "anthropic"] {
            let run = try await Self.run(["replay", "--format", format, "-"], stdin: body)
            #expect(run.status == 1, "\(format)")
            #expect(run.stderr.contains("INVALID_ARGUMENT: API key not valid."), "\(format): \(run.stderr)")
        }
    }
}
