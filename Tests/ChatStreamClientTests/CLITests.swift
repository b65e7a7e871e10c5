// The built `chatstream` binary run as a process: the contracts of issues 4 and 7 for chat,
// conversations, messages, conversation, close, tag and read. Each test gives its child processes
// a fresh XDG_DATA_HOME, so the device ID and the embedded server's data file are its own.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@Suite("chatstream client commands (the built binary)", .blockingAllowed)
struct CLITests {
    typealias Run = ChildProcess.Result

    /// A fresh data directory for one test's child processes.
    final class Home: Sendable {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "chatstream-cli-\(UUID().uuidString.lowercased())", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        /// Runs `chatstream arguments...` to completion (killed after `timeout`), off the test's threads.
        func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Run {
            try await ChildProcess.run(arguments, environment: ["XDG_DATA_HOME": url.path], timeout: timeout)
        }
    }

    /// A server in this process for the `--base-url` tests.
    static func startServer(extensions: Bool = true) throws -> ChatAPIServer {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.agentId = "demo-agent"
        configuration.replyDelay = .zero
        configuration.extensionsEnabled = extensions
        configuration.http.shutdownGracePeriod = .seconds(3)
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        return server
    }

    static func json(_ line: Substring) throws -> JSONTree { try JSONTree(parsing: Array(line.utf8)) }

    /// The first line of `run`'s stdout as JSON.
    static func firstJSON(_ run: Run) throws -> JSONTree {
        guard let line = run.lines.first else { throw CLIFailure(message: "no output: \(run)") }
        return try json(line)
    }

    struct CLIFailure: Error { var message: String }

    static func isUUIDv4(_ text: Substring) -> Bool {
        guard text == text.lowercased(), let uuid = UUID(uuidString: String(text)) else { return false }
        return uuid.uuidString.lowercased() == text && text[text.index(text.startIndex, offsetBy: 14)] == "4"
    }

    // MARK: Embedded server (no --base-url)

    @Test func chatWithoutBaseURLStreamsTheReplyAndPrintsTheConversationIdOnStderr() async throws {
        let home = try Home()
        let run = try await home.run(["chat", "Hello"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasPrefix("You said: Hello."), "\(run)")
        #expect(run.stdout.hasSuffix("\n"))
        let stderrLines = run.stderr.split(separator: "\n")
        #expect(stderrLines.count == 1, "\(run)")
        #expect(Self.isUUIDv4(stderrLines.last ?? ""), "\(run)")
    }

    @Test func chatJSONThenConversationsAndMessagesShareTheDeviceAndTheData() async throws {
        let home = try Home()
        let first = try await home.run(["chat", "--json", "first question"])
        #expect(first.status == 0, "\(first)")
        #expect(first.lines.count == 1, "\(first)")
        let reply = try Self.firstJSON(first)
        #expect(
            Set(reply.objectValue?.keys ?? []) == [
                "conversationId", "userMessageId", "finishReason", "usage", "message",
            ])
        #expect(reply["finishReason"] == "stop")
        #expect(reply["usage"]?["credits"] == 1)
        #expect(reply["message"]?["parts"]?[0]?["type"] == "text")
        #expect(reply["message"]?["parts"]?[0]?["text"]?.stringValue?.hasPrefix("You said: first question.") == true)
        let id = try #require(reply["conversationId"]?.stringValue)
        #expect(reply["message"]?["conversationId"]?.stringValue == id)
        #expect(reply["userMessageId"]?.stringValue != nil)

        let second = try await home.run(["chat", "--conversation", id, "second question"])
        #expect(second.status == 0, "\(second)")
        #expect(second.stderr == id + "\n")
        let other = try await home.run(["chat", "--json", "another conversation"])
        let otherId = try #require(try Self.firstJSON(other)["conversationId"]?.stringValue)

        // A later process keeps the device ID and the embedded server's data.
        let listed = try await home.run(["conversations", "--json"])
        #expect(listed.status == 0, "\(listed)")
        let conversations = try listed.lines.map(Self.json)
        #expect(conversations.compactMap { $0["id"]?.stringValue } == [otherId, id])
        #expect(conversations.last?["title"] == "first question")

        let messages = try await home.run(["messages", id, "--all", "--limit", "1", "--json"])
        #expect(messages.status == 0, "\(messages)")
        let history = try messages.lines.map(Self.json)
        #expect(history.compactMap { $0["role"]?.stringValue } == ["user", "assistant", "user", "assistant"])
        #expect(history[0]["parts"]?[0]?["text"] == "first question")
        #expect(history[2]["parts"]?[0]?["text"] == "second question")
        #expect(history[1]["id"] == reply["message"]?["id"])
        let firstPage = try await home.run(["messages", id, "--limit", "1", "--json"])
        #expect(firstPage.lines.count == 1)  // without --all, one page: the newest message
        #expect(try Self.json(firstPage.lines[0])["id"] == history[3]["id"])
    }

    @Test(arguments: [
        ["chat"], ["chat", "--bogus", "hi"], ["chat", "--json"], ["chat", "--base-url", "ftp://example.com", "hi"],
        ["conversations", "--order", "sideways"], ["conversations", "--status", "open"],
        ["conversations", "--limit", "0"], ["conversations", "extra"], ["messages"], ["messages", "--all"],
        ["conversation"], ["close"], ["close", "a", "b"], ["tag"], ["read", "only-one"],
        ["read", "a", "b", "--tag", "x"],
        ["serve", "--port", "x"], ["serve", "--fail-status", "200"], ["nonsense"],
        ["conversations", "--source", "sideways"], ["messages", "c1", "--source", "cache"], ["sync", "extra"],
        ["sync", "--bogus"],
    ])
    func badFlagsPrintUsageAndExit2(arguments: [String]) async throws {
        let home = try Home()
        let run = try await home.run(arguments)
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.hasPrefix("error: "), "\(run)")
        #expect(run.stderr.contains("usage: chatstream"), "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        // Nothing was started: no device ID and no server data were written.
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.url.path).isEmpty)
    }

    @Test func helpListsEveryCommandAndFlag() async throws {
        let home = try Home()
        let run = try await home.run(["help"])
        #expect(run.status == 0)
        for word in [
            "replay", "serve", "chat", "sync", "--source network|local|auto", "queued: <clientMessageId>",
            "conversations", "messages", "conversation ID", "close ID", "tag ID TAG...",
            "read ID MESSAGE_ID", "--delay-ms", "--chunk-size", "--drop-after", "--fail-status", "--no-extensions",
            "--status", "--tag", "--unread", "--search", "--order", "--base-url", "--agent", "--conversation",
            "--limit", "--all", "--json", "--host", "--port", "--data", "--format", "--output", "--lenient",
        ] {
            #expect(run.stdout.contains(word), "\(word)")
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func serveRunsUntilASignalThenExits0(signal: Int32) async throws {
        let home = try Home()
        let (listening, run) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(String, ChildProcess.Result), any Error>) in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let child = try ChildProcess(
                            ChildProcess.chatstream, ["serve", "--port", "0"],
                            environment: ["XDG_DATA_HOME": home.url.path])
                        child.read(orError: { $0.contains(UInt8(ascii: "\n")) }, timeout: .seconds(120))
                        let listening = child.errorSoFar
                        kill(child.pid, signal)
                        return (listening, child.wait(timeout: .seconds(120)))
                    })
            }
        }
        #expect(listening.hasPrefix("listening on http://127.0.0.1:"), "\(run)")
        #expect(run.status == 0, "\(run)")
    }

    @Test func everyCommandPrintsItsOwnUsageOnHelp() async throws {
        let home = try Home()
        for command in ["replay", "serve", "chat", "conversations", "messages", "conversation", "close", "tag", "read"]
        {
            let run = try await home.run([command, "--help"])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.hasPrefix("usage: chatstream \(command)"), "\(run)")
            #expect(try await home.run(["help", command]).stdout.hasPrefix("usage: chatstream \(command)"))
        }
    }

    // MARK: --base-url

    @Test func conversationManagementCommandsAgainstABaseURL() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let home = try Home()
        let base = ["--base-url", "http://127.0.0.1:\(server.port)"]
        func chat(_ text: String) async throws -> JSONTree {
            let run = try await home.run(["chat", "--json"] + base + [text])
            #expect(run.status == 0, "\(run)")
            return try Self.firstJSON(run)
        }
        let target = try await chat("close me later")
        let id = try #require(target["conversationId"]?.stringValue)
        let replyId = try #require(target["message"]?["id"]?.stringValue)
        let ongoingTagged = try #require(try await chat("stays open")["conversationId"]?.stringValue)
        let endedUntagged = try #require(try await chat("ends untagged")["conversationId"]?.stringValue)

        let shown = try await home.run(["conversation", id, "--json"] + base)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.lines.count == 1)
        let conversation = try Self.json(shown.lines[0])
        #expect(conversation["id"]?.stringValue == id)
        #expect(conversation["status"] == "ongoing")
        #expect(conversation["tags"] == [])
        #expect(conversation["unreadCount"] == 1)
        #expect(conversation["lastMessage"]?["id"]?.stringValue == replyId)

        let tagged = try await home.run(["tag", id, "a", "b", "--json"] + base)
        #expect(tagged.status == 0, "\(tagged)")
        #expect(try Self.json(tagged.lines[0])["tags"] == ["a", "b"])
        #expect(try await home.run(["tag", ongoingTagged, "a"] + base).status == 0)

        let read = try await home.run(["read", id, replyId, "--json"] + base)
        #expect(read.status == 0, "\(read)")
        #expect(try Self.json(read.lines[0])["unreadCount"] == 0)

        let closed = try await home.run(["close", id] + base)
        #expect(closed.status == 0, "\(closed)")
        #expect(closed.stdout.hasPrefix("\(id)\tended\t"), "\(closed)")
        #expect(try await home.run(["close", endedUntagged] + base).status == 0)
        #expect(try await home.run(["close", id] + base).status == 0)  // idempotent

        let refused = try await home.run(["chat", "--conversation", id] + base + ["still there?"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("error: 403 CHAT_CONVERSATION_NOT_ONGOING: "), "\(refused)")

        let filtered = try await home.run(
            ["conversations", "--status", "ended", "--tag", "a", "--order", "asc", "--json"] + base)
        #expect(filtered.status == 0, "\(filtered)")
        #expect(try filtered.lines.map { try Self.json($0)["id"]?.stringValue } == [id])
        let ascending = try await home.run(["conversations", "--order", "asc", "--json"] + base)
        let descending = try await home.run(["conversations", "--order", "desc", "--json"] + base)
        let ascendingIds = try ascending.lines.map { try Self.json($0)["id"]?.stringValue ?? "" }
        #expect(ascendingIds.count == 3)
        #expect(ascendingIds == (try descending.lines.map { try Self.json($0)["id"]?.stringValue ?? "" }).reversed())
        let either = try await home.run(
            [
                "conversations", "--status", "ended", "--status", "ongoing", "--tag", "a", "--all", "--limit", "1",
                "--json",
            ]
                + base)
        #expect(Set(try either.lines.map { try Self.json($0)["id"]?.stringValue ?? "" }) == [id, ongoingTagged])
        let searched = try await home.run(["conversations", "--search", "UNTAGGED", "--json"] + base)
        #expect(try searched.lines.map { try Self.json($0)["id"]?.stringValue } == [endedUntagged])
        let unread = try await home.run(["conversations", "--unread", "--json"] + base)
        #expect(
            Set(try unread.lines.map { try Self.json($0)["id"]?.stringValue ?? "" }) == [ongoingTagged, endedUntagged])

        let missing = try await home.run(["conversation", "00000000-0000-4000-8000-000000000000"] + base)
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: 404 RESOURCE_CONVERSATION_NOT_FOUND: "), "\(missing)")
        let badRead = try await home.run(["read", ongoingTagged, "no-such-message"] + base)
        #expect(badRead.status == 1)
        #expect(badRead.stderr.hasPrefix("error: 404 "), "\(badRead)")
    }

    @Test func extensionCommandsAgainstAServerWithoutThemSayNotSupported() async throws {
        let server = try Self.startServer(extensions: false)
        defer { server.stop() }
        let home = try Home()
        let base = ["--base-url", "http://127.0.0.1:\(server.port)"]
        let chat = try await home.run(["chat"] + base + ["plain server"])
        #expect(chat.status == 0, "\(chat)")
        let id = String(chat.stderr.split(separator: "\n").last ?? "")
        for arguments in [
            ["conversation", id], ["close", id], ["tag", id, "x"], ["read", id, "m"],
            ["conversations", "--status", "ended"],
        ] {
            let run = try await home.run(arguments + base)
            #expect(run.status == 1, "\(arguments): \(run)")
            #expect(run.stderr.hasPrefix("error: not supported by this server: "), "\(arguments): \(run)")
        }
        // Section 1 still works.
        let listed = try await home.run(["conversations", "--json"] + base)
        #expect(try listed.lines.map { try Self.json($0)["id"]?.stringValue } == [id])
        #expect(try Self.json(listed.lines[0])["tags"] == nil)
        #expect(try await home.run(["messages", id] + base).lines.count == 2)
    }
}
