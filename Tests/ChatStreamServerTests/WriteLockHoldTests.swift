// Issue 31, deliverable 4: a large chat does not hold the write lock for seconds. The largest
// message a chat takes (1 MiB; an 8 MB one is refused before any lock) is turned into its stored
// forms before the lock, so the lock covers its inserts and the synced commit. The bound is loose
// (a loaded test machine); the figure printed is the one to report.

import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Write lock hold", .blockingAllowed)
struct WriteLockHoldTests {
    @Test func theLargestChatHoldsTheWriteLockBriefly() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try APIFixture(dataFile: directory.appendingPathComponent("lock.sqlite").path)
        let store = fixture.server.handlers.store
        let words = "Ünïcode words, punctuation; and digits 0123456789 "
        let message = String(repeating: words, count: StringLimits.messageBytes / words.utf8.count)
        #expect(message.utf8.count > StringLimits.messageBytes - 128)
        let eightMB = String(repeating: "x", count: 8_000_000)
        let refused = try fixture.chat(eightMB, stream: false)
        #expect(refused.status == 400)
        #expect(refused.json["error"]?["details"]?["field"] == "message")
        var times: [Duration] = []
        for _ in 0..<4 {
            let start = ContinuousClock.now
            let answer = try fixture.chat(message, stream: false)
            times.append(ContinuousClock.now - start)
            #expect(answer.status == 200)
        }
        let held = store.longestWriteLockHold
        print("write lock: longest hold \(held) over 4 chats of \(message.utf8.count) bytes; requests took \(times)")
        #expect(held > .zero)
        #expect(held < .milliseconds(750))
    }
}
