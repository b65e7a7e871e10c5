// Runs the documented-style examples against a local ChatAPIServer (public API only).

import ChatStreamClient
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@Suite("Documented examples against ChatAPIServer", .blockingAllowed)
struct DocumentedExamplesTests {
    static func withClient<T>(_ body: (ChatbaseClient) async throws -> T) async throws -> T {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.agentId = "agent-docs"
        configuration.replyDelay = .zero
        configuration.http.shutdownGracePeriod = .seconds(3)
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let client = ChatbaseClient(
            agentId: "agent-docs", baseURL: URL(string: "http://127.0.0.1:\(server.port)/api/sdk")!,
            identityStore: InMemoryIdentityStore())
        return try await body(client)
    }

    @Test func theExamplesRunAsDocumented() async throws {
        try await Self.withClient { client in
            DocumentedExamples.registerTools(client)
            let conversationId = try await DocumentedExamples.quickStart(client)
            let story = try await DocumentedExamples.streaming(client)
            #expect(story.message.text.contains("Tell me a story"))
            #expect(DocumentedExamples.responseFields(story).contains("agent"))
            let weather = try await client.send("weather in Nice?", conversationId: conversationId)
            #expect(weather.message.text.contains("Nice"))
            #expect(try await DocumentedExamples.conversations(client).count == 2)
            let retried = try await DocumentedExamples.retry(
                client, conversationId: story.conversationId, messageId: story.message.id)
            #expect(retried.contains("Tell me a story"))
            #expect(try await DocumentedExamples.nonStreaming(client, conversationId: nil) == .stop)
            #expect(await DocumentedExamples.errors(client).hasPrefix("404 "))
            #expect(DocumentedExamples.jsonValues() == ["Paris", "3", "true", "9.0", "true", "2", "5"])
            #expect(DocumentedExamples.hand(client) === client)
            #expect(await DocumentedExamples.state(client) == 2)
        }
    }
}
