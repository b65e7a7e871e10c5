// The CLI offline: the server stopped then restarted (its SQLite data file keeps the history), the
// cached lists shown meanwhile with --source local and auto, a chat queued (exit 75,
// `queued: <clientMessageId>`), and exactly one delivery after `chatstream sync`.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("chatstream offline: cache, outbox and sync (the built binary)", .blockingAllowed)
struct OfflineCLITests {
    typealias Home = CLITests.Home

    static func startServer(port: UInt16, dataFile: String) throws -> ChatAPIServer {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = port
        configuration.agentId = "demo-agent"
        configuration.replyDelay = .zero
        configuration.dataFile = dataFile
        configuration.http.shutdownGracePeriod = .seconds(1)
        return try RetryPolicyTests.startRetryingBind(configuration)
    }

    @Test func cachedListsWhileDownThenAQueuedMessageIsDeliveredOnceBySync() async throws {
        let home = try Home()
        let dataFile = home.url.appendingPathComponent("server.sqlite").path
        var server = try Self.startServer(port: 0, dataFile: dataFile)
        let port = server.port
        let base = ["--base-url", "http://127.0.0.1:\(port)"]

        let first = try await home.run(["chat", "--json"] + base + ["before the outage"])
        #expect(first.status == 0, "\(first)")
        let id = try #require(try CLITests.firstJSON(first)["conversationId"]?.stringValue)
        let online = try await home.run(["conversations"] + base)
        #expect(online.status == 0, "\(online)")
        #expect(online.lines.count == 1 && online.stdout.hasPrefix(id + "\t"), "\(online)")
        let onlineMessages = try await home.run(["messages", id] + base)
        #expect(onlineMessages.lines.count == 2, "\(onlineMessages)")

        server.stop()
        // Down: the cache answers.
        let local = try await home.run(["conversations", "--source", "local"] + base)
        #expect(local.status == 0, "\(local)")
        #expect(local.stdout == online.stdout, "\(local)")
        let localMessages = try await home.run(["messages", id, "--source", "local"] + base)
        #expect(localMessages.status == 0, "\(localMessages)")
        #expect(localMessages.stdout == onlineMessages.stdout, "\(localMessages)")
        let auto = try await home.run(["conversations", "--source", "auto"] + base)
        #expect(auto.status == 1, "\(auto)")
        #expect(auto.stdout == online.stdout, "\(auto)")
        #expect(auto.stderr.hasPrefix("error: network: "), "\(auto)")
        let network = try await home.run(["conversations"] + base)
        #expect(network.status == 1 && network.stdout.isEmpty, "\(network)")

        let queued = try await home.run(["chat", "--conversation", id] + base + ["sent while down"])
        #expect(queued.status == 75, "\(queued)")
        #expect(queued.stdout.isEmpty, "\(queued)")
        let queuedLine = try #require(queued.stderr.split(separator: "\n").last)
        #expect(queuedLine.hasPrefix("queued: "), "\(queued)")
        let clientMessageId = queuedLine.dropFirst("queued: ".count)
        #expect(CLITests.isUUIDv4(clientMessageId), "\(queued)")
        let stillDown = try await home.run(["sync"] + base)
        #expect(stillDown.status == 1, "\(stillDown)")
        #expect(stillDown.stderr.contains("pending: \(clientMessageId): "), "\(stillDown)")

        server = try Self.startServer(port: port, dataFile: dataFile)
        defer { server.stop() }
        let synced = try await home.run(["sync", "--json"] + base)
        #expect(synced.status == 0, "\(synced)")
        #expect(synced.lines.count == 1, "\(synced)")
        let reply = try CLITests.firstJSON(synced)
        #expect(reply["conversationId"]?.stringValue == id)
        #expect(reply["message"]?["parts"]?[0]?["text"]?.stringValue?.contains("sent while down") == true, "\(synced)")
        let again = try await home.run(["sync"] + base)
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")

        let history = try await home.run(["messages", id, "--json"] + base)
        let users = try history.lines.map(CLITests.json).filter { $0["role"] == "user" }
        #expect(users.compactMap { $0["parts"]?[0]?["text"]?.stringValue } == ["before the outage", "sent while down"])
        #expect(users.last?["clientMessageId"]?.stringValue == String(clientMessageId))
        // auto: the cached lines, then only what is new or changed.
        let refreshed = try await home.run(["messages", id, "--source", "auto"] + base)
        #expect(refreshed.status == 0, "\(refreshed)")
        #expect(refreshed.lines.count == 4, "\(refreshed)")
    }
}
