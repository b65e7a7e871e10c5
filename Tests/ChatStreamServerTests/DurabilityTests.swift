// Nothing acknowledged is lost: `chatstream serve --data FILE` is killed with SIGKILL at random
// moments under a write load, twenty times, and restarted each time. After every kill the database
// opens (with SQLite's structural check) and holds every conversation and message that got a 2xx.

import ChatStream
import ChatStreamSQLite
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("Durability under SIGKILL", .blockingAllowed)
struct DurabilityTests {
    static var executable: String {
        let candidates = [
            ProjectPaths.root + "/.build/debug/chatstream",
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/chatstream",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    /// `chatstream serve --port 0 --data file` as a child process, with the port it listens on.
    final class ServerProcess {
        let process = Process()
        let port: UInt16

        init(dataFile: String) throws {
            process.executableURL = URL(fileURLWithPath: DurabilityTests.executable)
            process.arguments = ["serve", "--port", "0", "--delay-ms", "0", "--data", dataFile]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(120)
            while !text.contains("\n"), Date() < deadline {
                let data = errors.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
                let port = UInt16(text[range].split(separator: ":")[1])
            else {
                process.terminate()
                throw APITestError(description: "the server did not start: \(text)")
            }
            self.port = port
        }

        func kill() {
            testKill(process.processIdentifier)
            process.waitUntilExit()
        }
    }

    /// What the load got a 2xx for.
    struct Acknowledged {
        var conversations: Set<String> = []
        var messages: Set<String> = []
    }

    final class Ledger: Sendable {
        let state = Mutex(Acknowledged())
        func withLock<R>(_ body: (inout Acknowledged) -> R) -> R { state.withLock { body(&$0) } }
    }

    static func post(_ port: UInt16, _ path: String, device: String, body: String) throws -> APIResponse {
        let bytes = Array(body.utf8)
        let head =
            "POST /api/sdk/agents/demo-agent/\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + "X-Device-Id: \(device)\r\nContent-Type: application/json\r\nContent-Length: \(bytes.count)\r\n\r\n"
        return try APIFixture.exchange(port: port, bytes: Array(head.utf8) + bytes)
    }

    /// Writes from `writers` threads until the server goes away; records every 2xx.
    static func load(port: UInt16, writers: Int, into acknowledged: Ledger) {
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            let device = "writer-\(writer)"
            while true {
                let conversation = UUID().uuidString.lowercased()
                guard
                    let created = try? post(port, "conversations", device: device, body: #"{"id":"\#(conversation)"}"#),
                    created.status == 201 || created.status == 200
                else { return }
                acknowledged.withLock { _ = $0.conversations.insert(conversation) }
                for _ in 0..<3 {
                    let message = UUID().uuidString.lowercased()
                    let body =
                        #"{"message":"keep \#(message)","conversationId":"\#(conversation)","clientMessageId":"\#(message)","stream":false}"#
                    guard let chat = try? post(port, "chat", device: device, body: body), chat.status == 200 else {
                        return
                    }
                    acknowledged.withLock { _ = $0.messages.insert(message) }
                }
            }
        }
    }

    @Test func everyAcknowledgedWriteSurvivesTwentyKills() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatstream-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("data.sqlite").path
        let acknowledged = Ledger()
        let started = Date()
        var generator = SystemRandomNumberGenerator()
        for round in 1...20 {
            let server = try ServerProcess(dataFile: file)
            let port = server.port
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                Self.load(port: port, writers: 3, into: acknowledged)
                done.signal()
            }
            // Killed mid-load: after the round's first acknowledged chat (a loaded machine may take
            // longer than a fixed window to get one), then at a random moment.
            let before = acknowledged.withLock { $0.messages.count }
            _ = eventually(within: 120) { acknowledged.withLock { $0.messages.count } > before }
            usleep(UInt32.random(in: 0...240_000, using: &generator))
            server.kill()
            done.wait()
            // The database opens (structural check included) and holds everything acknowledged so far.
            let database = try SQLiteDatabase(path: file)
            let conversations = Set(try database.query("SELECT id FROM conversations") { $0.text(0) })
            let messages = try database.query(
                "SELECT client_message_id FROM messages WHERE client_message_id IS NOT NULL"
            ) { $0.text(0) }
            let replies = try database.first("SELECT count(*) FROM messages WHERE reply_to IS NOT NULL") { $0.int(0) }
            let expected = acknowledged.withLock { $0 }
            #expect(expected.conversations.isSubset(of: conversations), "round \(round)")
            #expect(expected.messages.isSubset(of: Set(messages)), "round \(round)")
            #expect(Set(messages).count == messages.count, "round \(round): a message stored twice")
            #expect(replies == messages.count, "round \(round): a user message without its reply")
        }
        let totals = acknowledged.withLock { $0 }
        #expect(totals.messages.count >= 20, "a round acknowledged no chat before its kill")
        // The last state serves over HTTP after one more restart.
        let server = try ServerProcess(dataFile: file)
        defer { server.kill() }
        let list = try Self.post(server.port, "conversations", device: "writer-0", body: "{}")
        #expect(list.status == 201)
        let elapsed = Date().timeIntervalSince(started)
        print(
            "durability: 20 SIGKILLs, \(totals.conversations.count) conversations and \(totals.messages.count) "
                + "chats acknowledged, all present; \(String(format: "%.1f", elapsed)) s")
        #expect(elapsed < 60)
    }
}
