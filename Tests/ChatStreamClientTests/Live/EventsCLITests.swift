// `chatstream events` as a process (issue 21, deliverable 6): one JSON line per event, each once and
// in order across the server's dropped connections, until SIGINT, then exit 0.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@Suite("chatstream events (the built binary)", .blockingAllowed)
struct EventsCLITests {
    @Test func printsEachEventOnceInOrderAcrossDropsAndExitsZeroOnSIGINT() async throws {
        let home = try CLITests.Home()
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.replyDelay = .zero
        configuration.liveEvents.dropEvery = 4
        configuration.liveEvents.retryMilliseconds = 50
        configuration.http.shutdownGracePeriod = .seconds(3)
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        // The first chat makes the device ID both processes share (it lives in XDG_DATA_HOME).
        let first = try await home.run(["chat", "--base-url", base, "--json", "hello one"])
        #expect(first.status == 0, "\(first)")
        let events = try ChildProcess(
            ChildProcess.chatstream, ["events", "--json", "--base-url", base, "--since", "0"],
            environment: ["XDG_DATA_HOME": home.url.path])
        for index in 2...4 {
            let chat = try await home.run(["chat", "--base-url", base, "--json", "hello \(index)"])
            #expect(chat.status == 0, "\(chat)")
        }
        // Four conversations, each: created, the user's message, the reply (and typing, updates).
        let output = await Task.detached {
            events.read(
                until: { bytes in
                    String(decoding: bytes, as: UTF8.self).components(separatedBy: "\"message.created\"").count > 8
                }, timeout: .seconds(60))
        }.value
        kill(events.pid, SIGINT)
        let result = await Task.detached { events.wait(timeout: .seconds(120)) }.value
        #expect(result.status == 0, "\(result)")
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        let values = try lines.map { try JSONTree(parsing: Array($0.utf8)) }
        let ids = values.compactMap { $0["id"]?.stringValue.flatMap { Int($0) } }
        #expect(ids.count == values.count, "every line has a numeric id")
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "ids once each and increasing: \(ids)")
        let types = values.compactMap { $0["type"]?.stringValue }
        #expect(types.filter { $0 == "conversation.created" }.count == 4)
        #expect(types.filter { $0 == "message.created" }.count == 8)
        #expect(!types.contains("reset"))
    }
}
