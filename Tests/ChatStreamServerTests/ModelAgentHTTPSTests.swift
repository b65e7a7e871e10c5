// An agent whose upstream is `https://` (issue 33, item 3), on loopback without the internet: the
// test makes a self-signed certificate with the `openssl` command and runs `openssl s_server` with
// it, which relays the TLS connection to the test's pipes (the request the server sent arrives on
// its output, the recorded answer the test writes to its input goes back). Checked: the request
// reaches the upstream over TLS with the family's path, headers and body; the recording's text is
// the reply; the certificate is verified (without the agent's `caFile` the chat is refused with
// 502 naming the certificate, and nothing is stored). Linux only (libcurl; /proc/net/tcp tells
// when s_server listens without using up a connection).

#if os(Linux)
    import ChatStream
    import ChatStreamServer
    import Foundation
    import Glibc
    import HTTPTestSupport
    import TestSupport
    import Testing

    @Suite(.serialized, .blockingAllowed) struct ModelAgentHTTPSTests {
        /// A folder with `cert.pem` and `key.pem`: a self-signed certificate for 127.0.0.1.
        static func makeCertificate() throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let child = try ChildProcess(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", folder.appendingPathComponent("key.pem").path,
                    "-out", folder.appendingPathComponent("cert.pem").path, "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                ])
            let result = child.wait(timeout: .seconds(120))
            guard result.status == 0 else { throw APITestError(description: "openssl req failed: \(result)") }
            return folder
        }

        /// A loopback port nothing listens on now (a RefusingPort's, let go at once).
        static func freePort() throws -> UInt16 { try RefusingPort().port }

        /// Whether something listens on `port` (read from /proc/net/tcp, so no connection is made).
        static func listening(on port: UInt16) -> Bool {
            // Read to the end in a loop (a proc file has no size; a busy machine's table spans many pages).
            guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return false }
            defer { try? file.close() }
            let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
            let local = String(format: ":%04X", port)
            return table.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == "0A"
            }
        }

        /// `openssl s_server` on `port` with the certificate in `folder`, once it listens.
        static func startTLSServer(port: UInt16, folder: URL) throws -> ChildProcess {
            let server = try ChildProcess(
                "/usr/bin/openssl",
                [
                    "s_server", "-accept", "127.0.0.1:\(port)", "-cert", folder.appendingPathComponent("cert.pem").path,
                    "-key", folder.appendingPathComponent("key.pem").path, "-quiet",
                ])
            let deadline = ContinuousClock.now + .seconds(120)
            while !listening(on: port) {
                guard ContinuousClock.now < deadline else {
                    let result = server.wait(timeout: .seconds(1))
                    throw APITestError(description: "openssl s_server did not listen: \(result)")
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return server
        }

        /// A server whose OpenAI-compatible agent sends to `https://127.0.0.1:port/v1`.
        static func fixture(port: UInt16, caFile: String?) throws -> APIFixture {
            var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
            agents[0].upstream.baseURL = "https://127.0.0.1:\(port)/v1"
            agents[0].upstream.caFile = caFile
            return try APIFixture(agent: "openai-agent") { configuration in
                configuration.agents = agents
                configuration.environment = { ["CHATSTREAM_TEST_OPENAI_KEY": "sk-tls"][$0] }
            }
        }

        @Test func anHTTPSUpstreamIsReachedOverVerifiedTLS() throws {
            let folder = try Self.makeCertificate()
            defer { try? FileManager.default.removeItem(at: folder) }
            let port = try Self.freePort()
            let tls = try Self.startTLSServer(port: port, folder: folder)
            defer { _ = tls.wait(timeout: .seconds(2)) }

            // Without the agent's caFile the self-signed certificate is refused: 502, nothing stored.
            let untrusting = try Self.fixture(port: port, caFile: nil)
            let refused = try untrusting.chat("What is 1 + 1?")
            #expect(refused.status == 502)
            #expect(refused.errorCode == "CHAT_STREAMING_ERROR")
            let why = refused.json["error"]?["message"]?.stringValue ?? ""
            #expect(why.lowercased().contains("certificate"), "\(why)")
            #expect(untrusting.server.conversationCount == 0)

            // With it, the recording comes back over TLS.
            let path = "vendor-streams/openai-chat/huggingface-novita__text.sse"
            let recording = Array(try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/" + path)))
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: \(recording.count)\r\n\r\n"
            try tls.write(Array(head.utf8) + recording)
            let api = try Self.fixture(port: port, caFile: folder.appendingPathComponent("cert.pem").path)
            let reply = try api.chat("What is 1 + 1?")
            #expect(reply.status == 200, "\(reply.text.prefix(300))")
            let text = reply.streamChunks.chunks.filter { $0["type"] == "text-delta" }
                .compactMap { $0["delta"]?.stringValue }.joined()
            var decoder = StreamFormat.openAIChat.makeDecoder()
            var assembler = MessageAssembler()
            try decoder.feed(recording, into: &assembler)
            try decoder.finish(into: &assembler)
            let expected = assembler.finish()[0].text
            #expect(!expected.isEmpty)
            #expect(text == expected)
            #expect(reply.streamChunks.chunks.last?["type"] == "finish")

            // What the upstream got: the family's request, with the key, over the TLS connection.
            let received = tls.read(
                until: { bytes in
                    guard let split = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return false }
                    let head = String(decoding: bytes[..<split.lowerBound], as: UTF8.self).lowercased()
                    guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                        let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                    else { return false }
                    return bytes.count - split.upperBound >= length
                }, timeout: .seconds(120))
            let request = String(decoding: received, as: UTF8.self)
            #expect(request.hasPrefix("POST /v1/chat/completions HTTP/1.1\r\n"), "\(request.prefix(200))")
            #expect(request.contains("Authorization: Bearer sk-tls\r\n"))
            let body = try JSONTree(
                parsing: Array(request.components(separatedBy: "\r\n\r\n").dropFirst().joined().utf8))
            #expect(body["stream"] == true)
            #expect(body["messages"]?[1] == ["role": "user", "content": "What is 1 + 1?"])
        }
    }
#endif
