// The agent's timeout (PROTOCOLS.md section 9's `timeoutSeconds`) bounds every wait on the
// upstream: one that takes the connection and never answers is 504 CHAT_STREAMING_ERROR with
// nothing stored; one that falls silent mid-stream ends the reply with an error chunk after the
// text so far, which is stored, and its connection is closed. The tests assert no upper bound on
// time (a loaded machine only makes the timeout fire later).

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(.blockingAllowed) struct ModelAgentTimeoutTests {
    /// A loopback socket that listens but never accepts: a connection to it completes (the
    /// kernel's backlog) and the request is taken, but no answer ever comes.
    final class SilentListener {
        let fd: Int32
        let port: UInt16

        init() throws {
            #if canImport(Glibc)
                fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = fd
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard bound, listen(fd, 8) == 0 else {
                close(fd)
                throw APITestError(description: "no listening socket")
            }
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(fd) }
    }

    /// A server whose OpenAI-compatible agent sends to `baseURL` and waits `timeout` for each answer.
    static func fixture(baseURL: String, timeout: Duration) throws -> APIFixture {
        var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        agents[0].upstream.baseURL = baseURL
        agents[0].upstream.timeout = timeout
        return try APIFixture(agent: "openai-agent") { configuration in
            configuration.agents = agents
            configuration.environment = { _ in nil }
        }
    }

    @Test func anUpstreamThatNeverAnswersIs504AndNothingIsStored() throws {
        let listener = try SilentListener()
        let api = try Self.fixture(baseURL: "http://127.0.0.1:\(listener.port)/v1", timeout: .seconds(1))
        let started = ContinuousClock.now
        let response = try api.chat("hello")
        #expect(response.status == 504, "\(response.text.prefix(300))")
        #expect(response.errorCode == "CHAT_STREAMING_ERROR")
        #expect(response.json["error"]?["message"]?.stringValue?.contains("sent nothing for 1") == true)
        // It waited at least the agent's timeout.
        #expect(ContinuousClock.now - started >= .seconds(1))
        #expect(api.server.conversationCount == 0)
    }

    @Test func anUpstreamThatFallsSilentMidStreamEndsWithAnErrorChunkAndKeepsTheText() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(baseURL: provider.baseURL, timeout: .seconds(1))
        let bytes = Array(
            try Data(
                contentsOf: URL(
                    fileURLWithPath: ProjectPaths.fixtures + "/agents/streams/openai-chat-after-tools.sse")))
        // The first three events ("Paris is 18°C and sunny; "), then nothing.
        let events = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n\n")
        provider.enqueue(
            MockProvider.Answer(
                pieces: [Array((events.prefix(3).joined(separator: "\n\n") + "\n\n").utf8)], ending: .silent))
        let response = try api.chat("weather?")
        #expect(response.status == 200)
        let (chunks, done) = response.streamChunks
        #expect(done)
        #expect(ModelAgentRetryTests.streamedText(response) == "Paris is 18°C and sunny; ")
        #expect(chunks.last?["type"] == "error")
        #expect(chunks.last?["code"] == "CHAT_STREAMING_ERROR")
        #expect(
            chunks.last?["errorText"]?.stringValue?.contains("sent nothing for 1") == true, "\(chunks.last ?? .null)")
        let conversation = try #require(chunks.first?["messageMetadata"]?["conversationId"]?.stringValue)
        let stored = try api.page(api.api("conversations/\(conversation)/messages")).items
        #expect(ModelAgentRetryTests.text(ofParts: stored.last?["parts"]) == "Paris is 18°C and sunny; ")
        #expect(
            ModelAgentLimitsTests.upstreamClosedByServer(provider),
            "closed \(provider.closedByClient), held \(provider.heldToDeadline)")
    }
}
