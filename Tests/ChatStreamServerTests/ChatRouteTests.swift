// Chat, continue, ownership, status, tool round trip, retry and verify over real loopback HTTP.

import ChatStream
import ChatStreamServer
import TestSupport
import Testing

@Suite("Chat routes", .blockingAllowed)
struct ChatRouteTests {
    @Test func chatCreatesConversationAndStreamsWellFormedUIMessageStream() throws {
        let fixture = try APIFixture()
        let response = try fixture.chat("Hello there")
        #expect(response.status == 200)
        #expect(response.complete)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(response.header("x-vercel-ai-ui-message-stream") == "v1")
        #expect(response.header("Transfer-Encoding") == "chunked")
        let (chunks, done) = response.streamChunks
        #expect(done)
        #expect(response.text.hasSuffix("data: [DONE]\n\n"))
        let types = chunks.compactMap { $0["type"]?.stringValue }
        #expect(types.first == "start")
        #expect(Array(types.prefix(3)) == ["start", "start-step", "text-start"])
        #expect(Array(types.suffix(3)) == ["text-end", "finish-step", "finish"])
        #expect(types.filter { $0 == "text-delta" }.count >= 3)
        let textId = chunks[2]["id"]?.stringValue
        #expect(textId != nil)
        #expect(chunks.filter { $0["type"] == "text-delta" }.allSatisfy { $0["id"]?.stringValue == textId })
        let text = chunks.filter { $0["type"] == "text-delta" }.compactMap { $0["delta"]?.stringValue }.joined()
        #expect(text.hasPrefix("You said: Hello there."))

        let start = try #require(chunks.first?["messageMetadata"])
        let finish = try #require(chunks.last)
        let conversationId = try #require(start["conversationId"]?.stringValue)
        #expect(isLowercaseUUIDv7(conversationId))
        #expect(finish["finishReason"] == "stop")
        let metadata = try #require(finish["messageMetadata"])
        #expect(metadata["conversationId"]?.stringValue == conversationId)
        #expect(metadata["messageId"] == start["messageId"])
        #expect(metadata["userMessageId"] == start["userMessageId"])
        #expect(metadata["userMessageId"]?.stringValue != nil)
        #expect(metadata["userId"] == .null)
        #expect(metadata["finishReason"] == "stop")
        #expect(metadata["usage"]?["credits"]?.intValue != nil)
        #expect(fixture.server.conversationCount == 1)

        // The history holds the user message then the reply, with the same IDs.
        let page = try fixture.page(fixture.api("conversations/\(conversationId)/messages"))
        #expect(page.items.map { $0["role"]?.stringValue } == ["user", "assistant"])
        #expect(page.items[0]["id"] == metadata["userMessageId"])
        #expect(page.items[1]["id"] == metadata["messageId"])
        #expect(page.items[1]["parts"]?[0]?["text"]?.stringValue == text)
    }

    @Test func sendingWithoutConversationIdAlwaysStartsANewOne() throws {
        let fixture = try APIFixture()
        let first = try fixture.startConversation("one")
        let second = try fixture.startConversation("two")
        #expect(first != second)
        #expect(fixture.server.conversationCount == 2)
    }

    @Test func continuingAddsToTheSameConversation() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("first message")
        let response = try fixture.chat("second message", conversation: id)
        #expect(response.status == 200)
        #expect(response.streamChunks.chunks.last?["messageMetadata"]?["conversationId"]?.stringValue == id)
        #expect(fixture.server.conversationCount == 1)
        let page = try fixture.page(fixture.api("conversations/\(id)/messages"))
        #expect(page.total == 4)
        let conversations = try fixture.page(fixture.api("conversations"))
        #expect(conversations.items.first?["title"] == "first message")
    }

    @Test func nonStreamingChatAnswersTheDataEnvelope() throws {
        let fixture = try APIFixture()
        let response = try fixture.chat("plain please", stream: false)
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        let data = try #require(response.json["data"])
        #expect(data["role"] == "assistant")
        #expect(data["id"]?.stringValue != nil)
        #expect(data["parts"]?[0]?["type"] == "text")
        #expect(data["parts"]?[0]?["text"]?.stringValue?.hasPrefix("You said: plain please.") == true)
        #expect(data["metadata"]?["conversationId"]?.stringValue.map(isLowercaseUUIDv7) == true)
    }

    @Test(arguments: ["end", "takeOver", "close"])
    func conversationsThatAreNotOngoingRefuseMessages(_ how: String) throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("hello")
        switch how {
        case "end": #expect(fixture.server.endConversation(id: id))
        case "takeOver": #expect(fixture.server.takeOverConversation(id: id))
        default: #expect(try fixture.request("POST", fixture.api("conversations/\(id)/close")).status == 200)
        }
        let response = try fixture.chat("anyone?", conversation: id)
        #expect(response.status == 403)
        #expect(response.errorCode == "CHAT_CONVERSATION_NOT_ONGOING")
    }

    @Test func anotherDeviceCannotUseAConversation() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("mine")
        let chat = try fixture.chat("hijack", conversation: id, device: "device-b")
        #expect(chat.status == 404)
        #expect(chat.errorCode == "RESOURCE_CONVERSATION_NOT_FOUND")
        let messages = try fixture.request("GET", fixture.api("conversations/\(id)/messages"), device: "device-b")
        #expect(messages.status == 404)
        #expect(messages.errorCode == "RESOURCE_CONVERSATION_NOT_FOUND")
        #expect(try fixture.page(fixture.api("conversations"), device: "device-b").items.isEmpty)
        let unknown = try fixture.chat("hi", conversation: "00000000-0000-4000-8000-000000000000")
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "RESOURCE_CONVERSATION_NOT_FOUND")
    }

    @Test func weatherToolRoundTripStreamsTheCallThenAnswersWithTheOutput() throws {
        let fixture = try APIFixture()
        let response = try fixture.chat("What is the WEATHER in lisbon?")
        let (chunks, done) = response.streamChunks
        #expect(done)
        let types = chunks.compactMap { $0["type"]?.stringValue }
        #expect(types.contains("tool-input-start"))
        #expect(types.filter { $0 == "tool-input-delta" }.count >= 2)
        let available = try #require(chunks.first { $0["type"] == "tool-input-available" })
        #expect(available["toolName"] == "get_weather")
        #expect(available["input"] == ["city": "Lisbon"])
        let deltas = chunks.filter { $0["type"] == "tool-input-delta" }.compactMap { $0["inputTextDelta"]?.stringValue }
        #expect(try JSONTree(parsing: deltas.joined()) == ["city": "Lisbon"])
        #expect(chunks.last?["finishReason"] == "tool-calls")
        #expect(chunks.last?["messageMetadata"]?["finishReason"] == "tool-calls")
        let callId = try #require(available["toolCallId"]?.stringValue)
        let id = try #require(chunks.last?["messageMetadata"]?["conversationId"]?.stringValue)

        let unknown = try fixture.request(
            "POST", fixture.api("conversations/\(id)/tool-result"), body: #"{"toolCallId":"nope","output":1}"#)
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "RESOURCE_TOOL_CALL_NOT_FOUND")
        let posted = try fixture.request(
            "POST", fixture.api("conversations/\(id)/tool-result"),
            body: #"{"toolCallId":"\#(callId)","output":"sunny, 21°C"}"#)
        #expect(posted.status == 200)
        #expect(posted.json == ["data": ["success": true]])

        let next = try fixture.chat(nil, conversation: id)
        let text = next.streamChunks.chunks.filter { $0["type"] == "text-delta" }.compactMap {
            $0["delta"]?.stringValue
        }
        .joined()
        #expect(text == "The weather in Lisbon: sunny, 21°C.")
        #expect(next.streamChunks.chunks.last?["finishReason"] == "stop")

        let history = try fixture.page(fixture.api("conversations/\(id)/messages"))
        let partTypes = history.items.flatMap { $0["parts"]?.arrayValue ?? [] }.compactMap { $0["type"]?.stringValue }
        #expect(partTypes == ["text", "tool-call", "tool-result", "text"])
    }

    @Test func retryRegeneratesTheReply() throws {
        let fixture = try APIFixture()
        let first = try fixture.chat("say it again")
        let metadata = try #require(first.streamChunks.chunks.last?["messageMetadata"])
        let id = try #require(metadata["conversationId"]?.stringValue)
        let replyId = try #require(metadata["messageId"]?.stringValue)
        let userId = try #require(metadata["userMessageId"]?.stringValue)
        let retry = try fixture.request(
            "POST", fixture.api("conversations/\(id)/retry"), body: #"{"messageId":"\#(replyId)","stream":true}"#)
        #expect(retry.status == 200)
        #expect(retry.header("x-vercel-ai-ui-message-stream") == "v1")
        let retried = try #require(retry.streamChunks.chunks.last?["messageMetadata"])
        #expect(retried["messageId"]?.stringValue != replyId)
        #expect(retried["userMessageId"]?.stringValue == userId)
        let history = try fixture.page(fixture.api("conversations/\(id)/messages"))
        #expect(history.items.compactMap { $0["id"]?.stringValue } == [userId, retried["messageId"]!.stringValue!])

        let missing = try fixture.request(
            "POST", fixture.api("conversations/\(id)/retry"), body: #"{"messageId":"\#(userId)","stream":true}"#)
        #expect(missing.status == 404)
        #expect(missing.errorCode == "CHAT_RETRY_MESSAGE_NOT_FOUND")
    }

    @Test func verifyHandsTheDevicesConversationsToTheUser() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("before identifying")
        let token = developmentToken(user: "user-42")
        let bad = try fixture.request("POST", fixture.api("verify"), body: #"{"token":"not-a-jwt"}"#)
        #expect(bad.status == 401)
        #expect(bad.errorCode == "AUTH_INVALID_JWT")
        let verified = try fixture.request("POST", fixture.api("verify"), body: #"{"token":"\#(token)"}"#)
        #expect(verified.status == 200)
        #expect(verified.json == [:])

        let asUser = try fixture.page(fixture.api("conversations"), device: "device-a", token: token)
        #expect(asUser.items.compactMap { $0["id"]?.stringValue } == [id])
        #expect(asUser.items.first?["userId"] == "user-42")
        // The same user on another device sees it and may continue it; the bare device no longer owns it.
        #expect(try fixture.page(fixture.api("conversations"), device: "device-b", token: token).items.count == 1)
        #expect(try fixture.chat("from b", conversation: id, device: "device-b", token: token).status == 200)
        #expect(try fixture.page(fixture.api("conversations"), device: "device-a").items.isEmpty)
        #expect(try fixture.chat("anon", conversation: id, device: "device-a").status == 404)
        // A new chat with the token belongs to the user and says so in the metadata.
        let owned = try fixture.chat("as user", device: "device-c", token: token)
        #expect(owned.streamChunks.chunks.last?["messageMetadata"]?["userId"] == "user-42")
        let badHeader = try fixture.request("GET", fixture.api("conversations"), token: "a.b")
        #expect(badHeader.status == 401)
    }
}

/// Whether `text` is a lowercase UUID of version 7 (the server's IDs: `TimeOrderedUUID`).
func isLowercaseUUIDv7(_ text: String) -> Bool {
    let characters = Array(text)
    guard characters.count == 36, text == text.lowercased() else { return false }
    for (index, character) in characters.enumerated() {
        if [8, 13, 18, 23].contains(index) {
            guard character == "-" else { return false }
        } else if !character.isHexDigit {
            return false
        }
    }
    return characters[14] == "7" && "89ab".contains(characters[19])
}
