// `chatstream serve` takes its JWT secret from a file or the environment, so it stays out of
// /proc/PID/cmdline; the argv form still works but warns. Each test runs the built binary and
// checks the secret by verifying tokens signed with it (and with another) over loopback.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("serve's JWT secret (the built binary)", .blockingAllowed)
struct ServeSecretTests {
    static let secret = "file-secret-9876543210"

    /// Starts `chatstream serve --port 0 arguments...`, waits for its first line on standard error,
    /// and returns that text, the port (nil if it did not start) and the child.
    static func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> (
        String, UInt16?, ChildProcess
    ) {
        let child = try ChildProcess(
            DurabilityTests.executable, ["serve", "--port", "0", "--delay-ms", "0"] + arguments,
            environment: environment)
        child.read(
            orError: {
                let text = String(decoding: $0, as: UTF8.self)
                return text.contains("error:") || (text.contains("listening on") && text.hasSuffix("\n"))
            }, timeout: .seconds(120))
        let text = child.errorSoFar
        guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) else {
            return (text, nil, child)
        }
        return (text, UInt16(text[range].split(separator: ":")[1]), child)
    }

    /// The status `POST verify` answers for a token signed with `secret`.
    static func verifyStatus(port: UInt16, signedWith secret: String) throws -> Int {
        let token = JWTVerifier.sign(["sub": "user-1"], secret: Array(secret.utf8))
        let body = Array(#"{"token":"\#(token)"}"#.utf8)
        let head =
            "POST /api/sdk/agents/demo-agent/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + "Content-Type: application/json\r\nX-Device-Id: device-1\r\nContent-Length: \(body.count)\r\n\r\n"
        return try APIFixture.exchange(port: port, bytes: Array(head.utf8) + body).status
    }

    static func temporaryFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatstream-secret-\(UUID().uuidString)"
        ).path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: ["file", "environment", "argv"])
    func theSecretIsUsedFrom(_ source: String) throws {
        let file = try Self.temporaryFile(Self.secret + "\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (text, port, child): (String, UInt16?, ChildProcess)
        switch source {
        case "file": (text, port, child) = try Self.serve(["--jwt-secret-file", file])
        case "environment":
            (text, port, child) = try Self.serve([], environment: ["CHATSTREAM_JWT_SECRET": Self.secret])
        default: (text, port, child) = try Self.serve(["--jwt-secret", Self.secret])
        }
        defer {
            kill(child.pid, SIGTERM)
            _ = child.wait(timeout: .seconds(120))
        }
        let started = try #require(port, "\(text)")
        #expect(try Self.verifyStatus(port: started, signedWith: Self.secret) == 200)
        #expect(try Self.verifyStatus(port: started, signedWith: "another") == 401)
        // Only the argv form warns, and it says why.
        #expect(text.contains("warning: --jwt-secret is readable by every local user") == (source == "argv"), "\(text)")
    }

    @Test func anUnreadableOrEmptySecretFileIsAUsageError() throws {
        let empty = try Self.temporaryFile("\n")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        for (arguments, message) in [
            (["--jwt-secret-file", "/nonexistent/secret"], #"cannot read "/nonexistent/secret""#),
            (["--jwt-secret-file", empty], "holds no secret"),
            (["--jwt-secret-file", empty, "--jwt-secret", "x"], "exclude each other"),
        ] {
            let (_, port, child) = try Self.serve(arguments)
            let run = child.wait(timeout: .seconds(120))
            #expect(port == nil)
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.contains(message), "\(run)")
        }
    }
}
