// Issue 28's relaunch, on Linux: the built `chatstream chat` killed (SIGKILL) mid-reply, then
// started again as `chatstream sync`, which completes the reply the killed process left in flight
// (recorded in the client's cache) into the cache and prints it whole, once; a second sync finds
// nothing left.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("A chat killed mid-reply is completed at the next launch (the built binary)", .blockingAllowed)
struct RelaunchCLITests {
    @Test func chatKilledMidReplyIsCompletedOnceBySync() async throws {
        let home = try CLITests.Home()
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.agentId = "demo-agent"
        // Paced: the reply takes about 6 s, so the kill falls in its middle even when the test's
        // reading lags by seconds (a loaded CI machine).
        configuration.replyDelay = .milliseconds(250)
        configuration.http.shutdownGracePeriod = .seconds(1)
        let server = try RetryPolicyTests.startRetryingBind(configuration)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)"
        let message = "a reply the process is killed in"
        let whole =
            "You said: \(message). I am the ChatStream demo agent: I repeat what you write, so every reply is predictable."

        let chat = try ChildProcess(
            ChildProcess.chatstream, ["chat", "--base-url", url, message], environment: ["XDG_DATA_HOME": home.url.path]
        )
        let printed = chat.read(
            until: { String(decoding: $0, as: UTF8.self).contains("You said") }, timeout: .seconds(120))
        kill(chat.pid, SIGKILL)
        let killed = chat.wait(timeout: .seconds(60))
        #expect(killed.status == 128 + SIGKILL, "\(killed)")
        let before = String(decoding: printed, as: UTF8.self)
        #expect(before.contains("You said") && !before.contains("predictable."), "killed mid-reply: \(killed)")

        let sync = try await home.run(["sync", "--base-url", url])
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.stdout == whole + "\n", "\(sync)")
        let conversationId = sync.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(CLITests.isUUIDv4(Substring(conversationId)), "\(sync)")

        // In the cache, the message and its whole reply, once each.
        let local = try await home.run(["messages", conversationId, "--base-url", url, "--source", "local", "--json"])
        #expect(local.status == 0, "\(local)")
        #expect(local.stdout.components(separatedBy: "predictable.").count == 2, "\(local)")
        #expect(local.stdout.components(separatedBy: "\"\(message)\"").count == 2, "\(local)")

        // Nothing is left in flight: a second launch prints nothing.
        let again = try await home.run(["sync", "--base-url", url])
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.isEmpty, "\(again)")
    }
}
