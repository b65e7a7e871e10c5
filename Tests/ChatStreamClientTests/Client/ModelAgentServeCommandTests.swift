// `chatstream serve --agent-config FILE` as a process (issue 33's first "Done when" line): the built
// binary reads an agent file in the format of PROTOCOLS.md section 9 whose agents point at a
// MockProvider on loopback, takes each agent's key from the environment variable the file names,
// and holds a conversation with the client's documented code (ConversationState) and with
// `chatstream chat`, for both families. No test needs a real model.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamClient

/// Why the server process could not be used.
struct ServeFailure: Error, CustomStringConvertible {
    var description: String
}

@Suite("chatstream serve --agent-config (the built binary, mock provider on loopback)", .blockingAllowed)
@MainActor
struct ModelAgentServeCommandTests {
    /// A folder for the server's data and the agent file, removed at the end.
    final class Folder: Sendable {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "chatstream-agents-\(UUID().uuidString.lowercased())", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// The tests' agent file with every upstream's baseURL replaced by `baseURL`, written to `folder`.
    nonisolated static func agentFile(in folder: Folder, baseURL: String) throws -> String {
        let source = try JSONTree(
            parsing: Array(
                try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/agents/test-agents.json")))
        )
        var agents = source["agents"]?.arrayValue ?? []
        for index in agents.indices {
            guard case .object(var agent) = agents[index], case .object(var upstream)? = agent["upstream"] else {
                continue
            }
            upstream["baseURL"] = .string(baseURL)
            agent["upstream"] = .object(upstream)
            agents[index] = .object(agent)
        }
        let path = folder.url.appendingPathComponent("agents.json").path
        try Data((["agents": .array(agents)] as JSONTree).jsonText.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Starts `chatstream serve --port 0 --agent-config file` and returns it with the start line
    /// it printed once listening (the child is killed when no line comes).
    nonisolated static func serve(file: String, folder: Folder) async throws -> (ChildProcess, String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let child = try ChildProcess(
                            ChildProcess.chatstream,
                            [
                                "serve", "--port", "0", "--agent-config", file, "--data",
                                folder.url.path + "/data.sqlite",
                            ],
                            environment: [
                                "XDG_DATA_HOME": folder.url.path, "CHATSTREAM_TEST_OPENAI_KEY": "sk-from-env",
                                "CHATSTREAM_TEST_ANTHROPIC_KEY": "ak-from-env",
                            ])
                        child.read(orError: { $0.contains(UInt8(ascii: "\n")) }, timeout: .seconds(150))
                        let line = child.errorSoFar
                        guard line.contains("\n") else {
                            kill(child.pid, SIGKILL)
                            throw ServeFailure(description: "serve printed no start line: \(child.wait())")
                        }
                        return (child, line)
                    })
            }
        }
    }

    /// Stops the server with SIGTERM and waits for it to exit.
    nonisolated static func stop(_ child: ChildProcess) async -> ChildProcess.Result {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                kill(child.pid, SIGTERM)
                continuation.resume(returning: child.wait(timeout: .seconds(150)))
            }
        }
    }

    @Test func theServerFromTheAgentFileHoldsAConversationForBothFamilies() async throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let folder = try Folder()
        let file = try Self.agentFile(in: folder, baseURL: provider.baseURL)
        let (child, line) = try await Self.serve(file: file, folder: folder)
        // "listening on http://127.0.0.1:PORT (agent openai-agent: openai-chat llama3.2 at ...; ...)"
        let prefix = "listening on http://127.0.0.1:"
        #expect(line.hasPrefix(prefix), "\(line)")
        #expect(line.contains("agent openai-agent: openai-chat llama3.2 at \(provider.baseURL)"), "\(line)")
        #expect(line.contains("agent anthropic-agent: anthropic claude-sonnet-4-5"), "\(line)")
        let port = try #require(UInt16(line.dropFirst(prefix.count).prefix { $0.isNumber }), "\(line)")
        let base = URL(string: "http://127.0.0.1:\(port)")!

        // The documented app code, against the OpenAI-compatible agent.
        let openAIText = "vendor-streams/openai-chat/huggingface-novita__text.sse"
        provider.enqueue(.recording(openAIText))
        let client = ChatbaseClient(
            agentId: "openai-agent", baseURL: base, identityStore: InMemoryIdentityStore(), store: nil)
        let state = ConversationState(client: client)
        await state.sendMessage("What is 1 + 1?")
        #expect(state.error == nil, "\(String(describing: state.error))")
        let expected = try ModelAgentConversationTests.recorded(openAIText, .openAIChat).text
        #expect(!expected.isEmpty)
        #expect(ModelAgentConversationTests.shown(state.messages) == ["user: What is 1 + 1?", "agent: \(expected)"])
        let reloaded = ConversationState(client: client)
        await reloaded.loadHistory(conversationId: try #require(state.conversationId))
        #expect(
            ModelAgentConversationTests.shown(reloaded.messages) == ModelAgentConversationTests.shown(state.messages))
        // The key came from the environment variable the file names (not from the file or argv).
        let first = try #require(provider.received.first)
        #expect(first.path == "/v1/chat/completions")
        #expect(first.headers["authorization"] == "Bearer sk-from-env")
        #expect(first.body["messages"]?[1] == ["role": "user", "content": "What is 1 + 1?"])

        // `chatstream chat` against the Anthropic-style agent prints the recording's text.
        let anthropicText = "vendor-streams/anthropic/anthropic__text.sse"
        provider.enqueue(.recording(anthropicText))
        let chat = try await ChildProcess.run(
            ["chat", "--base-url", base.absoluteString, "--agent", "anthropic-agent", "Say hello"],
            environment: ["XDG_DATA_HOME": folder.url.path], timeout: .seconds(150))
        #expect(chat.status == 0, "\(chat)")
        let anthropicExpected = try ModelAgentConversationTests.recorded(anthropicText, .anthropic).text
        #expect(!anthropicExpected.isEmpty)
        #expect(chat.stdout == anthropicExpected + "\n", "\(chat)")
        let second = try #require(provider.received.last)
        #expect(provider.received.count == 2)
        #expect(second.path == "/v1/messages")
        #expect(second.headers["x-api-key"] == "ak-from-env")
        #expect(second.body["system"] == "Be brief.")

        let stopped = await Self.stop(child)
        #expect(stopped.status == 0, "\(stopped)")
        // Neither key was on the command line or in the file.
        let written = String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)
        #expect(!written.contains("sk-from-env") && !written.contains("ak-from-env"))
    }
}
