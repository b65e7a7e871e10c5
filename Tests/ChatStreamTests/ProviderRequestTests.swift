// ProviderRequest: the request bodies and headers of both families for a conversation with
// text, a tool loop (calls, one answered and one not) and tools, checked member by member.

import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct ProviderRequestTests {
    static let weather = ProviderRequest.Tool(
        name: "get_weather", description: "Weather for a city",
        inputSchema: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]])

    /// A user question, an agent reply with text and two calls (the first answered, the second
    /// not), then a follow-up question.
    static let history: [ProviderRequest.Message] = [
        .init(role: .user, parts: [.text("Weather in Paris and Rome?")]),
        .init(
            role: .assistant,
            parts: [
                .text("Checking."),
                .toolCall(ToolCallPart(toolCallId: "c1", toolName: "get_weather", input: ["city": "Paris"])),
                .toolCall(ToolCallPart(toolCallId: "c2", toolName: "get_weather", input: ["city": "Rome"])),
                .toolResult(ToolResultPart(toolCallId: "c1", toolName: "get_weather", output: "18°C")),
                .reasoning("not sent back"),
            ]),
        .init(role: .user, parts: [.text("Thanks")]),
    ]

    static func request(_ family: ProviderRequest.Family) -> ProviderRequest {
        ProviderRequest(
            family: family, model: "m1", systemPrompt: "Be brief.", messages: history, tools: [weather])
    }

    @Test func chatCompletionsCarriesSystemHistoryToolCallsResultsAndTools() throws {
        let body = Self.request(.openAIChat).body
        #expect(body["model"] == "m1")
        #expect(body["stream"] == true)
        #expect(body["max_tokens"] == nil)
        let messages = try #require(body["messages"]?.arrayValue)
        #expect(messages.map { $0["role"]?.stringValue } == ["system", "user", "assistant", "tool", "tool", "user"])
        #expect(messages[0]["content"] == "Be brief.")
        #expect(messages[1]["content"] == "Weather in Paris and Rome?")
        #expect(messages[2]["content"] == "Checking.")
        let calls = try #require(messages[2]["tool_calls"]?.arrayValue)
        #expect(calls.count == 2)
        #expect(
            calls[0] == [
                "id": "c1", "type": "function", "function": ["name": "get_weather", "arguments": #"{"city":"Paris"}"#],
            ])
        #expect(messages[3] == ["role": "tool", "tool_call_id": "c1", "content": "18°C"])
        #expect(messages[4]["tool_call_id"] == "c2")
        #expect(messages[4]["content"] == .string(ProviderRequest.missingResult.jsonText))
        #expect(messages[5] == ["role": "user", "content": "Thanks"])
        #expect(
            body["tools"]
                == [
                    [
                        "type": "function",
                        "function": [
                            "name": "get_weather", "description": "Weather for a city",
                            "parameters": Self.weather.inputSchema,
                        ],
                    ]
                ])
    }

    @Test func anthropicPutsResultsInTheNextUserTurnAndJoinsTurnsOfOneRole() throws {
        let body = Self.request(.anthropic).body
        #expect(body["model"] == "m1")
        #expect(body["max_tokens"] == .number(JSONNumber(ProviderRequest.defaultAnthropicMaxTokens)))
        #expect(body["stream"] == true)
        #expect(body["system"] == "Be brief.")
        let messages = try #require(body["messages"]?.arrayValue)
        #expect(messages.map { $0["role"]?.stringValue } == ["user", "assistant", "user"])
        #expect(
            messages[1]["content"]
                == [
                    ["type": "text", "text": "Checking."],
                    ["type": "tool_use", "id": "c1", "name": "get_weather", "input": ["city": "Paris"]],
                    ["type": "tool_use", "id": "c2", "name": "get_weather", "input": ["city": "Rome"]],
                ])
        // The results first, then the user's next words, in one turn.
        let last = try #require(messages[2]["content"]?.arrayValue)
        #expect(last.count == 3)
        #expect(last[0] == ["type": "tool_result", "tool_use_id": "c1", "content": "18°C"])
        #expect(last[1]["tool_use_id"] == "c2")
        #expect(last[2] == ["type": "text", "text": "Thanks"])
        #expect(
            body["tools"]
                == [
                    [
                        "name": "get_weather", "description": "Weather for a city",
                        "input_schema": Self.weather.inputSchema,
                    ]
                ])
    }

    @Test func theKeyGoesInTheFamilysHeaderAndNowhereWithoutOne() {
        let openAI = Self.request(.openAIChat)
        #expect(openAI.headers(apiKey: "sk-1").contains { $0 == ("Authorization", "Bearer sk-1") })
        #expect(!openAI.headers(apiKey: nil).contains { $0.name == "Authorization" })
        let anthropic = Self.request(.anthropic)
        let headers = anthropic.headers(apiKey: "ak-1")
        #expect(headers.contains { $0 == ("x-api-key", "ak-1") })
        #expect(headers.contains { $0 == ("anthropic-version", "2023-06-01") })
        #expect(!anthropic.headers(apiKey: nil).contains { $0.name == "x-api-key" })
        #expect(!anthropic.body.jsonText.contains("ak-1"))
    }

    @Test func theURLIsTheFamilysEndpointUnderTheBase() {
        #expect(
            Self.request(.openAIChat).url(baseURL: "http://127.0.0.1:11434/v1/")
                == "http://127.0.0.1:11434/v1/chat/completions")
        #expect(
            Self.request(.anthropic).url(baseURL: "https://api.anthropic.com/v1")
                == "https://api.anthropic.com/v1/messages")
    }

    @Test func withoutToolsNoToolsMemberIsSent() {
        let request = ProviderRequest(
            family: .openAIChat, model: "m", messages: [.init(role: .user, parts: [.text("hi")])])
        #expect(request.body["tools"] == nil)
        #expect(request.body["messages"] == [["role": "user", "content": "hi"]])
    }
}
