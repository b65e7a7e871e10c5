import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// What the vendor shapes of issue 30 assemble into, read from the vendor corpus (whose expected
/// lines VendorStreamTests checks at every chunking): each test names the shape it is about.
@Suite(.blockingAllowed) struct VendorShapeTests {
    /// The final messages of a corpus stream, and the error that ended it.
    static func messages(_ format: StreamFormat, _ name: String) throws -> (
        messages: [AssembledMessage], failure: StreamError?
    ) {
        let path = ProjectPaths.fixtures + "/vendor-streams/\(format.rawValue)/\(name)"
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let outcome = StreamCorpus.messageDecoder(format, [bytes])
        return (outcome.messages, outcome.failure)
    }

    static func calls(_ message: AssembledMessage) -> [String: ToolCallPart] {
        var calls: [String: ToolCallPart] = [:]
        for part in message.parts { if case .toolCall(let call) = part { calls[call.toolCallId] = call } }
        return calls
    }

    static func unknowns(_ message: AssembledMessage) -> [(type: String, raw: JSONTree)] {
        message.parts.compactMap { if case .unknown(let type, let raw) = $0 { (type, raw) } else { nil } }
    }

    @Test func providerExecutedOnToolInputAvailableMarksTheCall() throws {
        let result = try Self.messages(.uiMessageStream, "handwritten__provider-executed-on-available.sse")
        #expect(result.failure == nil)
        let calls = Self.calls(result.messages[0])
        #expect(calls["call-ws"]?.providerExecuted == true)
        #expect(calls["call-ws"]?.input == ["query": "swift 6.2"])
        #expect(calls["call-ce"]?.providerExecuted == true)
        #expect(calls["call-client"]?.providerExecuted == false)
    }

    @Test func anUnknownChunkIsKeptWholeAsAPart() throws {
        let result = try Self.messages(.uiMessageStream, "handwritten__provider-executed-on-available.sse")
        let unknown = Self.unknowns(result.messages[0])
        #expect(unknown.count == 1)
        #expect(unknown.first?.type == "x-trace")
        #expect(unknown.first?.raw == ["type": "x-trace", "traceId": "trace-7", "spans": 2])
        // It reads back from the history wire shape as the same part.
        let part = AssembledPart.unknown(type: "x-trace", raw: unknown[0].raw)
        #expect(AssembledPart(json: part.jsonValue) == part)
    }

    /// A history part without a string `type` (FuzzHistory found `{"typej":"text"}` gaining
    /// `"type":""` on the way back) reads back from its wire shape unchanged.
    @Test(arguments: [#"{"typej":"text"}"#, #"{"type":7,"text":"x"}"#, #"{"type":"","a":[1]}"#])
    func aPartWithoutAKindReadsBackUnchanged(_ text: String) throws {
        let part = AssembledPart(json: try JSONParser().parseValue(Array(text.utf8)))
        guard case .unknown(let type, _) = part else { Issue.record("not unknown: \(part)"); return }
        #expect(type.isEmpty)
        #expect(AssembledPart(json: part.jsonValue) == part)
    }

    @Test func responsesBuiltInToolsComeOutWithTheirInputs() throws {
        let result = try Self.messages(.openAIResponses, "handwritten__built-in-tools.sse")
        #expect(result.failure == nil)
        let message = result.messages[0]
        let calls = Self.calls(message)
        #expect(calls["ci_1"]?.toolName == "code_interpreter")
        #expect(calls["ci_1"]?.input == ["code": "print(sum(range(101)))", "container_id": "cntr_6843"])
        #expect(calls["mcp_1"]?.toolName == "ask_question")
        #expect(calls["mcp_1"]?.input == ["repoName": "swiftlang/swift", "question": "What does SE-0400 add?"])
        #expect(calls["fs_1"]?.input == ["queries": ["init accessors"]])
        let allProviderExecuted = calls.values.allSatisfy { $0.providerExecuted }
        #expect(allProviderExecuted)
        // The server label stays in the call's result (the whole item), and the tool list is kept.
        let results = message.parts.compactMap { if case .toolResult(let r) = $0 { r } else { nil } }
        #expect(results.first { $0.toolCallId == "mcp_1" }?.output["server_label"] == "deepwiki")
        #expect(Self.unknowns(message).map(\.type) == ["mcp_list_tools"])
        #expect(message.text == "5050, and SE-0400 adds init accessors.")
    }

    @Test func aChatStreamWithoutDoneIsCompleteWhenEveryChoiceFinished() throws {
        let complete = try Self.messages(.openAIChat, "handwritten__writer-no-done.sse")
        #expect(complete.failure == nil)
        #expect(complete.messages[0].finishReason == .stop)
        #expect(complete.messages[0].text == "Palmyra streams without a terminator.")
        #expect(complete.messages[0].usage?["total_tokens"] == 30)
        let cut = try Self.messages(.openAIChat, "handwritten__no-done-cut-mid-reply.sse")
        #expect(cut.failure?.kind == .truncated)
        #expect(cut.messages[0].text == "Palmyra was cut")
    }

    @Test func anthropicCompactionIsKeptWithItsDeltasJoinedAndServerToolsRead() throws {
        let result = try Self.messages(.anthropic, "handwritten__compaction-and-server-tools.sse")
        #expect(result.failure == nil)
        let message = result.messages[0]
        let unknown = Self.unknowns(message)
        #expect(unknown.map(\.type) == ["compaction"])
        #expect(
            unknown.first?.raw["content"]
                == "Summary of the earlier conversation: the user is planning a three-day trip to Lisbon in May.")
        let search = Self.calls(message)["srvtoolu_01Lisbon"]
        #expect(search?.providerExecuted == true && search?.input == ["query": "Lisbon weather May"])
        #expect(
            message.parts.contains { if case .toolResult(let r) = $0 { r.toolName == "web_search" } else { false } })
        #expect(
            message.parts.contains {
                if case .source(let s) = $0 { s.url == "https://example.com/lisbon-may" } else { false }
            })
    }

    @Test func geminiCodeExecutionPartsAreKeptInOrder() throws {
        let result = try Self.messages(.jsonArray, "handwritten__code-execution-parts.json")
        #expect(result.failure == nil)
        let kinds = result.messages[0].parts.map { $0.jsonValue["type"]?.stringValue ?? "" }
        #expect(kinds == ["text", "executableCode", "codeExecutionResult", "text"])
        #expect(Self.unknowns(result.messages[0]).first?.raw["executableCode"]?["language"] == "PYTHON")
    }

    @Test func ollamaThinkingToolCallsAndErrorLines() throws {
        let tools = try Self.messages(.ndjson, "handwritten__thinking-tool-calls.ndjson")
        #expect(tools.failure == nil)
        #expect(
            tools.messages[0].parts.first
                == .reasoning("The user wants the weather in Toronto; I should call get_weather."))
        #expect(Self.calls(tools.messages[0]).values.first?.input == ["city": "Toronto", "unit": "celsius"])
        let error = try Self.messages(.ndjson, "handwritten__error-line.ndjson")
        #expect(error.failure == nil)
        #expect(error.messages[0].text == "The capital of France")
        #expect(error.messages[0].error?.message == "an error was encountered while running the model: unexpected EOF")
    }
}
