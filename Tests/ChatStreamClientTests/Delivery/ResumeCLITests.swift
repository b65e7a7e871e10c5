// `chatstream chat` against a server that cuts every chat stream (as `chatstream serve
// --drop-after N` does): the built binary resumes the reply by itself, prints it whole and once,
// and exits 0. (The cut comes after the stream's first event, which names the reply and its
// conversation: a message that starts a conversation is not resent without them.)

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("chatstream chat resumes a cut reply (the built binary)", .blockingAllowed)
struct ResumeCLITests {
    @Test(arguments: [300, 700])
    func chatAgainstADroppingServerPrintsTheWholeReplyOnce(dropAfter: Int) async throws {
        let home = try CLITests.Home()
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.agentId = "demo-agent"
        configuration.replyDelay = .zero
        configuration.fault.dropAfterBytes = dropAfter
        configuration.http.shutdownGracePeriod = .seconds(1)
        let server = try RetryPolicyTests.startRetryingBind(configuration)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)"
        let result = try await home.run(["chat", "--base-url", url, "a message long enough to be cut more than once"])
        #expect(result.status == 0, "\(result)")
        let conversationId = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        // The CLI's device owns the conversation: read it as that device.
        let messages = try await home.run(["messages", conversationId, "--base-url", url])
        #expect(messages.status == 0, "\(messages)")
        #expect(result.stdout.hasPrefix("You said: a message long enough to be cut more than once."), "\(result)")
        #expect(result.stdout.components(separatedBy: "You said:").count == 2, "\(result)")
        #expect(messages.stdout.contains(String(result.stdout.dropLast().suffix(40))), "\(messages)")
    }
}
