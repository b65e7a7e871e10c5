// ConversationState and ConversationListState as the Chatbase SDK documents them, against the
// real ChatAPIServer.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("ConversationState as documented, against ChatAPIServer", .blockingAllowed)
@MainActor
struct ConversationStateTests {
    @Test func emptyAndBlankSendsAreIgnored() async throws {
        let (server, makeClient) = try ObservableStateTests.start()
        defer { server.stop() }
        let client = makeClient(nil)
        let state = ConversationState(client: client)
        await state.sendMessage("")
        await state.sendMessage("  \n\t ")
        #expect(state.messages.isEmpty)
        #expect(state.error == nil)
        #expect(try await client.listConversations().total == 0)
        await state.sendMessage("  padded  ")
        #expect(state.messages.first?.kind == .text("padded"))
        #expect(try await client.listConversations().total == 1)
    }

    @Test func aFailedReplyIsMarkedAndLeavesNoPhantomUserMessage() async throws {
        let (server, makeClient) = try ObservableStateTests.start()
        defer { server.stop() }
        let client = makeClient(nil)
        let state = ConversationState(client: client)
        await state.sendMessage("hello")
        let id = try #require(state.conversationId)
        _ = try await client.closeConversation(id: id)

        await state.sendMessage("are you there?")
        #expect((state.error as? APIError)?.isConversationNotOngoing == true)
        #expect(!state.isSending)
        #expect(state.messages.count == 4)
        let failedUser = state.messages[2]
        let failedReply = state.messages[3]
        #expect(failedUser.sender == .user && failedUser.isError && failedUser.messageId == nil)
        #expect(failedReply.sender == .agent && failedReply.isError && !failedReply.isStreaming)
        // Only the unfailed rows read as sent; a refetch shows what the server has.
        #expect(state.messages.filter { !$0.isError }.map(\.messageId) == state.messages.prefix(2).map(\.messageId))
        state.clearError()
        #expect(state.error == nil)
        await state.loadHistory(conversationId: id)
        #expect(state.messages.count == 2)
        #expect(state.messages.allSatisfy { !$0.isError })
    }

    @Test func toolCallsBecomeCardsAndTheTextAfterThemANewBubble() async throws {
        let (server, makeClient) = try ObservableStateTests.start()
        defer { server.stop() }
        let client = makeClient(nil)
        client.tool("get_weather") { input in ["city": input["city"] ?? .null, "sky": "clear"] }
        let state = ConversationState(client: client)
        await state.sendMessage("weather in Oslo?")
        #expect(state.error == nil)
        #expect(state.messages.count == 3)
        guard case .toolCall(let card) = state.messages[1].kind else {
            Issue.record("no tool card: \(state.messages)")
            return
        }
        #expect(card.toolName == "get_weather")
        #expect(card.input == ["city": "Oslo"])
        #expect(card.output == ["city": "Oslo", "sky": "clear"])
        #expect(card.status == .success)
        guard case .text(let text) = state.messages[2].kind else {
            Issue.record("no text after the card")
            return
        }
        #expect(text.contains("The weather in Oslo"))
        #expect(state.messages.allSatisfy { !$0.isStreaming })

        client.tool("get_weather") { _ in ["error": "no forecast"] }
        await state.sendMessage("weather in Lima?")
        guard case .toolCall(let failed) = state.messages[4].kind else {
            Issue.record("no second card")
            return
        }
        #expect(failed.status == .failure)

        // History shows the same cards.
        let reloaded = ConversationState(client: client)
        await reloaded.loadHistory(conversationId: try #require(state.conversationId))
        guard case .toolCall(let historic) = reloaded.messages[1].kind else {
            Issue.record("history has no card: \(reloaded.messages)")
            return
        }
        #expect(historic.status == .success)
        #expect(historic.output?["sky"] == "clear")
    }

    @Test func retryReplacesTheReplyFromThatMessage() async throws {
        let (server, makeClient) = try ObservableStateTests.start()
        defer { server.stop() }
        let state = ConversationState(client: makeClient(nil))
        await state.sendMessage("say it twice")
        let first = try #require(state.messages.last?.messageId)
        await state.retry(messageId: first)
        #expect(state.error == nil)
        #expect(state.messages.count == 2)
        let second = try #require(state.messages.last?.messageId)
        #expect(second != first)
        #expect(state.messages.last.map(Self.text)?.contains("say it twice") == true)
        await state.retry(messageId: "no-such-message")
        #expect(state.messages.count == 2)
    }

    static func text(_ row: ConversationState.UiMessage) -> String {
        if case .text(let text) = row.kind { return text }
        return ""
    }

    @Test func clearForgetsTheConversation() async throws {
        let (server, makeClient) = try ObservableStateTests.start()
        defer { server.stop() }
        let state = ConversationState(client: makeClient(nil))
        await state.sendMessage("one")
        let id = state.conversationId
        state.clear()
        #expect(state.messages.isEmpty && state.conversationId == nil && !state.hasMoreHistory)
        await state.sendMessage("two")
        #expect(state.conversationId != nil && state.conversationId != id)
        state.setConversationId(id)
        #expect(state.conversationId == id)
    }

    @Test func theListLoadsWithALimitAndClearsItsError() async throws {
        let (server, makeClient) = try ObservableStateTests.start()
        defer { server.stop() }
        let client = makeClient(nil)
        for index in 0..<3 { _ = try await client.send("c\(index)") }
        let list = ConversationListState(client: client)
        await list.load(limit: 2)
        #expect(list.conversations.count == 2)
        #expect(list.hasMore)
        await list.loadMore()
        #expect(list.conversations.count == 3)
        await list.close("no-such-conversation")
        #expect(list.error != nil)
        list.clearError()
        #expect(list.error == nil)
    }
}
