// Fault injection (headers and injectFault) and persistence across a restart with a data file.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Faults and persistence", .blockingAllowed)
struct FaultAndPersistenceTests {
    @Test func dropAfterHeaderCutsTheBody() throws {
        let fixture = try APIFixture()
        let whole = try fixture.chat("a reply long enough to be cut")
        #expect(whole.body.count > 300)
        let cut = try fixture.chat("a reply long enough to be cut", headers: [("X-ChatStream-Fault", "drop-after=200")])
        #expect(cut.status == 200)
        #expect(cut.body.count == 200)
        #expect(!cut.complete)
        #expect(!cut.streamChunks.done)
        #expect(cut.text.hasPrefix(#"id: 1\#ndata: {"type":"start""#))
    }

    @Test func injectedDropAppliesToTheNextRequestOnly() throws {
        let fixture = try APIFixture()
        fixture.server.injectFault(.init(chunkSize: 5, dropAfterBytes: 120))
        let cut = try fixture.chat("first")
        #expect(cut.body.count == 120)
        #expect(!cut.complete)
        let fine = try fixture.chat("second")
        #expect(fine.complete)
        #expect(fine.streamChunks.done)
    }

    @Test func chunkSizeAndDelayKeepTheStreamIntact() throws {
        let fixture = try APIFixture()
        let small = try fixture.chat("split me", headers: [("X-ChatStream-Fault", "chunk-size=7, delay-ms=0")])
        #expect(small.complete)
        let (chunks, done) = small.streamChunks
        #expect(done)
        #expect(chunks.first?["type"] == "start")
        #expect(chunks.last?["type"] == "finish")
    }

    @Test func injectedStatusAnswersTheNextRequestsWithRetryAfter() throws {
        let fixture = try APIFixture()
        fixture.server.injectFault(.init(status: 429, count: 2))
        for _ in 0..<2 {
            let limited = try fixture.chat("hi")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "2")
            #expect(limited.errorCode == "RATE_LIMIT_TOO_MANY_REQUESTS")
        }
        #expect(try fixture.chat("hi").status == 200)
        #expect(fixture.server.conversationCount == 1)
    }

    @Test func statusHeaderFaults() throws {
        let fixture = try APIFixture()
        let limited = try fixture.chat("hi", headers: [("X-ChatStream-Fault", "status=429")])
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "2")
        let failed = try fixture.chat("hi", headers: [("X-ChatStream-Fault", "status=500")])
        #expect(failed.status == 500)
        #expect(failed.errorCode == "INTERNAL_SERVER_ERROR")
        #expect(failed.header("Retry-After") == nil)
        let bad = try fixture.chat("hi", headers: [("X-ChatStream-Fault", "explode=1")])
        #expect(bad.status == 400)
        #expect(fixture.server.conversationCount == 0)
    }

    @Test func faultHeaderIsIgnoredUnlessAllowed() throws {
        let fixture = try APIFixture(faultHeader: false)
        let reply = try fixture.chat("hi", headers: [("X-ChatStream-Fault", "status=500, drop-after=10")])
        #expect(reply.status == 200)
        #expect(reply.complete)
        #expect(reply.streamChunks.done)
        // Nor is a malformed one an error: the header means nothing to this server.
        #expect(try fixture.chat("hi", headers: [("X-ChatStream-Fault", "explode=1")]).status == 200)
    }

    @Test(arguments: ["delay-ms=60001", "chunk-size=0", "chunk-size=1048577", "status=600", "retry-after=86401"])
    func faultParametersBeyondTheirBoundsAre400(header: String) throws {
        let fixture = try APIFixture()
        let answer = try fixture.chat("hi", headers: [("X-ChatStream-Fault", header)])
        #expect(answer.status == 400)
        #expect(answer.errorCode == "VALIDATION_INVALID_FAULT")
        #expect(fixture.server.conversationCount == 0)
    }

    @Test func aFaultSetInCodeIsClampedToTheBounds() throws {
        var fault = ChatAPIServer.Fault(chunkSize: 0, delay: .seconds(3600), retryAfterSeconds: 1_000_000)
        fault.status = 700
        let bounded = fault.bounded
        #expect(bounded.delay == .seconds(60))
        #expect(bounded.chunkSize == 1)
        #expect(bounded.retryAfterSeconds == 86_400)
        #expect(bounded.status == nil)
    }

    @Test func stateSurvivesARestartWithTheDataFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("state.sqlite").path
        let id: String
        let before: [JSONTree]
        do {
            let fixture = try APIFixture(dataFile: file)
            id = try fixture.startConversation("remember me")
            _ = try fixture.chat("and this", conversation: id)
            _ = try fixture.request("PUT", fixture.api("conversations/\(id)/tags"), body: #"{"tags":["kept"]}"#)
            _ = try fixture.startConversation("second")
            before = try fixture.page(fixture.api("conversations")).items
            fixture.server.stop()
        }
        #expect(FileManager.default.fileExists(atPath: file))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == ["state.sqlite"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(15) == Data("SQLite format 3".utf8))
        let fixture = try APIFixture(dataFile: file)
        #expect(fixture.server.conversationCount == 2)
        #expect(try fixture.page(fixture.api("conversations")).items == before)
        let history = try fixture.page(fixture.api("conversations/\(id)/messages"))
        #expect(history.items.compactMap { $0["parts"]?[0]?["text"]?.stringValue }.first == "remember me")
        #expect(history.total == 4)
        #expect(try fixture.chat("after restart", conversation: id).status == 200)
        #expect(try fixture.page(fixture.api("conversations?tag=kept")).items.count == 1)
    }

    @Test func anUnreadableDataFileFailsStart() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).json")
            .path
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: (any Error).self) { _ = try APIFixture(dataFile: file) }
    }
}
