// Code in the style of the Chatbase iOS SDK's documented examples, written against the documented
// signatures with nothing but `import ChatStreamClient` (no @testable): if a documented name or
// shape changes, this file stops compiling. The suite runs the examples against a local
// ChatAPIServer where they can run.

import ChatStreamClient
import Foundation
import Testing

#if canImport(SwiftUI)
    import SwiftUI
#endif

/// The examples, each a function taking a client, as an app would hold one.
enum DocumentedExamples {
    static func quickStart(_ client: ChatbaseClient) async throws -> String {
        let response = try await client.send("Hello")
        print(response.message.text)
        print(response.conversationId)
        let followUp = try await client.send("Tell me more", conversationId: response.conversationId)
        return followUp.conversationId
    }

    static func streaming(_ client: ChatbaseClient) async throws -> ChatResponse {
        try await client.send("Tell me a story") { cb in
            cb.onTextDelta = { chunk in
                print(chunk, terminator: "")
            }
            cb.onToolCall = { info in print("tool:", info.toolName, info.toolCallId, info.input) }
            cb.onToolResult = { info in print("result:", info.toolName, info.toolCallId, info.output) }
        }
    }

    static func registerTools(_ client: ChatbaseClient) {
        client.tool("lookup_order") { input in
            guard let id = input["order_id"]?.stringValue else {
                return .object(["error": .string("Missing order_id")])
            }
            return .object(["status": .string("shipped"), "id": .string(id), "items": .int(2)])
        }
        let handler: ToolHandler = { input in
            let city = input["location"]?["city"]?.stringValue ?? "Paris"
            return .object(["city": .string(city), "temperature": .number(21.5)])
        }
        client.tool("get_weather", handler: handler)
    }

    static func responseFields(_ response: ChatResponse) -> String {
        var lines: [String] = []
        lines.append(response.message.id)
        lines.append(response.message.text)
        lines.append(response.conversationId)
        lines.append(response.userMessageId ?? "-")
        switch response.finishReason {
        case .stop: lines.append("stop")
        case .error: lines.append("error")
        case .toolCalls: lines.append("tool-calls")
        }
        lines.append("\(response.usage.credits)")
        for part in response.message.parts {
            switch part {
            case .text(let text): lines.append(text)
            case .toolCall(let toolCallId, let toolName, let input): lines.append("\(toolCallId) \(toolName) \(input)")
            case .toolResult(let toolCallId, let toolName, let output):
                lines.append("\(toolCallId) \(toolName) \(output)")
            }
        }
        switch response.message.sender {
        case .user: lines.append("user")
        case .agent: lines.append("agent")
        }
        if let feedback = response.message.feedback { lines.append(feedback.rawValue) }
        if let score = response.message.score { lines.append("\(score)") }
        let date: Date = response.message.date
        lines.append("\(date.timeIntervalSince1970 > 0)")
        return lines.joined(separator: "\n")
    }

    static func conversations(_ client: ChatbaseClient) async throws -> [String] {
        var page = try await client.listConversations()
        var titles = page.data.map { $0.title ?? "New conversation" }
        print("Total: \(page.total), more: \(page.hasMore)")
        while let next = try await page.loadMore() {
            page = next
            titles += next.data.map { $0.title ?? "New conversation" }
        }
        if let first = page.data.first {
            let _: Date = first.createdAt
            let _: Date = first.updatedAt
            let _: String? = first.userId
            switch first.status {
            case .ongoing, .ended, .takenOver: break
            }
            let messages = try await client.listMessages(conversationId: first.id, limit: 50)
            let older = try await messages.loadMore()
            print(messages.data.count, older?.data.count ?? 0)
        }
        let limited = try await client.listConversations(cursor: nil, limit: 10)
        print(limited.data.count)
        client.newConversation()
        print(client.currentConversationId ?? "none")
        return titles
    }

    static func retry(_ client: ChatbaseClient, conversationId: String, messageId: String) async throws -> String {
        let response = try await client.retry(conversationId: conversationId, messageId: messageId)
        let streamed = try await client.retry(conversationId: conversationId, messageId: response.message.id) { cb in
            cb.onTextDelta = { _ in }
        }
        return streamed.message.text
    }

    static func nonStreaming(_ client: ChatbaseClient, conversationId: String?) async throws -> FinishReason {
        let response = try await client.sendNonStreaming("Hello", conversationId: conversationId)
        print(response.message.text)
        print(response.finishReason)
        print(response.usage.credits)
        return response.finishReason
    }

    static func identity(_ client: ChatbaseClient, jwt: String) async throws -> String? {
        print(client.deviceId)
        try await client.identify(token: jwt)
        switch client.authState {
        case .anonymous: print("anonymous")
        case .identified(let token): print("signed in", token.count)
        }
        let user = client.currentUserId
        client.logout()
        return user
    }

    static func errors(_ client: ChatbaseClient) async -> String {
        do {
            _ = try await client.send("Hello", conversationId: "no-such-conversation")
            return "sent"
        } catch let error as APIError {
            switch error {
            case .invalidResponse: return "invalid response"
            case .httpError(let statusCode, let detail):
                let fields: [String: String]? = detail.details
                return
                    "\(statusCode) \(detail.code) \(detail.message) \(fields?.count ?? 0) \(error.apiCode ?? "") \(error.statusCode ?? 0)"
            case .networkError(let underlying): return "network: \(underlying.localizedDescription)"
            }
        } catch ChatError.toolLoopLimitExceeded(let limit) {
            return "gave up after \(limit)"
        } catch let error as ChatError {
            switch error {
            case .noContent: return "no content"
            case .decodingFailed(let detail): return detail
            case .invalidURL(let url): return url
            case .toolLoopLimitExceeded(let limit): return "\(limit)"
            }
        } catch {
            return error.localizedDescription
        }
    }

    static func jsonValues() -> [String] {
        let input: JSONValue = .object([
            "location": .object(["city": .string("Paris")]), "days": .int(3), "ratio": .number(9.0),
            "metric": .bool(true), "tags": .array([.string("a"), .null]),
        ])
        let city = input["location"]?["city"]
        return [
            city?.stringValue ?? "-", "\(input["days"]?.intValue ?? -1)", "\(input["ratio"]?.intValue == nil)",
            "\(input["ratio"]?.numberValue ?? 0)", "\(input["metric"]?.boolValue ?? false)",
            "\(input["tags"]?.arrayValue?.count ?? 0)", "\(input.objectValue?.keys.count ?? 0)",
        ]
    }

    static func hand(_ client: ChatbaseClient) -> ChatbaseClient {
        let config = URLSessionConfiguration.default
        config.timeoutIntervalForRequest = 30
        config.timeoutIntervalForResource = 300
        _ = ChatbaseClient(agentId: "YOUR_AGENT_ID", configuration: config)
        _ = ChatbaseClient(agentId: "id", maxToolLoopSteps: 20)
        return client
    }

    @MainActor
    static func state(_ client: ChatbaseClient) async -> Int {
        let state = ConversationState(client: client)
        await state.sendMessage("Hello")
        for message in state.messages {
            switch message.kind {
            case .text(let text): print(message.sender, text, message.isStreaming, message.isError)
            case .toolCall(let card):
                let status: String
                switch card.status {
                case .executing: status = "running"
                case .success: status = "done"
                case .failure: status = "failed"
                }
                print(card.toolName, card.toolCallId, card.input, card.output ?? .null, status)
            }
            print(message.id, message.messageId ?? "-", message.date, message.feedback?.rawValue ?? "-")
        }
        if let id = state.messages.last?.messageId { await state.retry(messageId: id) }
        if let error = state.error { print(error.localizedDescription) }
        state.clearError()
        if let id = state.conversationId {
            await state.loadHistory(conversationId: id, limit: 20)
            if state.hasMoreHistory { await state.loadMoreHistory() }
        }
        print(state.isSending, state.isLoadingHistory)
        let count = state.messages.count
        state.clear()
        let list = ConversationListState(client: client)
        await list.load(limit: 20)
        if list.hasMore { await list.loadMore() }
        if list.error != nil { list.clearError() }
        print(list.isLoading, list.conversations.count)
        return count
    }
}

#if canImport(SwiftUI)
    @MainActor @Observable
    final class DocumentedChatModel {
        let state: ConversationState
        var input = ""

        init(client: ChatbaseClient) { state = ConversationState(client: client) }

        func send() {
            let text = input
            input = ""
            Task { [state] in await state.sendMessage(text) }
        }
    }

    struct DocumentedChatView: View {
        @State var model: DocumentedChatModel

        var body: some View {
            List(model.state.messages) { message in
                switch message.kind {
                case .text(let text): Text(text)
                case .toolCall(let card): Text(card.toolName)
                }
            }
        }
    }
#endif
