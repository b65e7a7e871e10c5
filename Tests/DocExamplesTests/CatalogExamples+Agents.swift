// swift-format-ignore-file
// (The blocks are kept exactly as the documentation shows them.)
// The Swift blocks of ChatStream.docc/PassAStreamOn.md and ChatStreamServer.docc/RunYourOwnAgent.md,
// compiled. Each function holds one block verbatim (the blocks declare functions, nested here).

import ChatStream
import ChatStreamClient
import ChatStreamServer

// MARK: ChatStream.docc/PassAStreamOn.md

func passAStreamOnRelay() {
    func relay(
        providerBody: AsyncThrowingStream<[UInt8], any Error>, write: ([UInt8]) async throws -> Void
    ) async throws {
        // Response headers: Content-Type: text/event-stream, x-vercel-ai-ui-message-stream: v1
        for await bytes in providerBody.streamEvents(format: .anthropic).uiMessageStream() {
            try await write(bytes)
        }
    }
}

func passAStreamOnEncoder() {
    func encodeForResume(_ events: [StreamEvent]) -> [[UInt8]] {
        var encoder = UIMessageStreamEncoder(firstEventID: 1)
        var held: [[UInt8]] = []
        for event in events {
            let bytes = encoder.encode(event)
            if !bytes.isEmpty { held.append(bytes) }
        }
        held.append(encoder.finish())
        return held
    }
}

// MARK: ChatStreamServer.docc/RunYourOwnAgent.md

func runYourOwnAgentClient() {
    func askTheLocalAgent() async throws {
        let client = ChatbaseClient(agentId: "local", baseURL: "http://127.0.0.1:8787")
        client.tool("get_weather") { input in
            .object(["city": input["city"] ?? .null, "celsius": .int(18)])
        }
        let response = try await client.send("What's the weather in Paris?")
        print(response.message.text)
    }
}

func runYourOwnAgentServer() {
    func serveTheAgents() throws -> ChatAPIServer {
        var configuration = ChatAPIServer.Configuration()
        configuration.agents = try AgentDefinition.load(contentsOf: "Fixtures/agents/ollama.json")
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        return server
    }
}
