// Group commit (issue 32, deliverable 5): writes that arrive while one commits are committed
// together, each still all or nothing under its own savepoint, each caller answered only after
// the commit that holds its write.

import Dispatch
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Group commit", .blockingAllowed)
struct GroupCommitTests {
    /// Runs `count` writes from as many threads, the first holding its batch open until all the
    /// others are queued behind it; `body(i)` is write i's body. Returns each write's outcome.
    static func concurrentWrites(
        _ store: ConversationStore, count: Int, body: @escaping @Sendable (Int, StoreTransaction) throws -> String
    ) -> [Result<String, any Error>] {
        let outcomes = LockedOutcomes(count: count)
        let firstRunning = DispatchSemaphore(value: 0)
        let othersQueued = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        Thread.detachNewThread {
            outcomes.set(
                0,
                Result {
                    try store.write { store in
                        firstRunning.signal()
                        othersQueued.wait()
                        return try body(0, store)
                    }
                })
            done.leave()
        }
        firstRunning.wait()
        for index in 1..<count {
            done.enter()
            Thread.detachNewThread {
                outcomes.set(index, Result { try store.write { store in try body(index, store) } })
                done.leave()
            }
        }
        // The others are queued once they wait behind the first (give their threads time to get there).
        Thread.sleep(forTimeInterval: 0.3)
        othersQueued.signal()
        done.wait()
        return outcomes.values
    }

    @Test func concurrentWritesShareCommitsAndEachKeepsItsOwnResult() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ConversationStore(path: directory.appendingPathComponent("group.sqlite").path)
        let before = store.writeQueue.batches
        let count = 24
        let outcomes = Self.concurrentWrites(store, count: count) { index, store in
            let caller = Caller(deviceId: "device-\(index)")
            return try store.createConversation(id: "conversation-\(index)", title: "t\(index)", for: caller, now: 1).id
        }
        for (index, outcome) in outcomes.enumerated() {
            #expect(try outcome.get() == "conversation-\(index)")
        }
        #expect(try store.read { try $0.conversationCount() } == count)
        // The first write's batch, then at most a few more for the 23 queued behind it.
        let batches = store.writeQueue.batches - before
        #expect(batches >= 2)
        #expect(batches <= 4, "\(count) writes took \(batches) commits")
    }

    @Test func theCommitterThreadStartsWithTheFirstWriteAndEndsWithTheStore() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var store: ConversationStore? = try ConversationStore(
            path: directory.appendingPathComponent("committer.sqlite").path)
        let queue = try #require(store?.writeQueue)
        #expect(!queue.isCommitterRunning)
        for index in 0..<3 {
            _ = try store?.write {
                try $0.createConversation(id: "c\(index)", title: nil, for: Caller(deviceId: "d"), now: 1)
            }
        }
        #expect(queue.isCommitterRunning)
        #expect(queue.batches == 3)
        store = nil
        #expect(eventually(within: 5) { !queue.isCommitterRunning }, "the committer outlived its store")
    }

    @Test func theCommitterRunsAtARaisedPriorityWhereTheSystemAllowsIt() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ConversationStore(path: directory.appendingPathComponent("priority.sqlite").path)
        _ = try store.write { try $0.createConversation(id: "c", title: nil, for: Caller(deviceId: "d"), now: 1) }
        #expect(store.writeQueue.isCommitterRunning)
        // Root (CI's machines) may lower a nice value; an unprivileged process keeps its own and
        // writes just the same.
        if geteuid() == 0 { #expect(store.writeQueue.committerPriorityRaised) }
        #expect(try store.read { try $0.conversationCount() } == 1)
    }

    @Test func aWriteThatThrowsUndoesOnlyItsOwnChanges() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ConversationStore(path: directory.appendingPathComponent("partial.sqlite").path)
        struct Refused: Error {}
        let outcomes = Self.concurrentWrites(store, count: 8) { index, store in
            let caller = Caller(deviceId: "device-\(index)")
            let id = try store.createConversation(id: "conversation-\(index)", title: nil, for: caller, now: 1).id
            if index % 3 == 1 { throw Refused() }  // after its insert: the savepoint must undo it
            return id
        }
        var kept = 0
        for (index, outcome) in outcomes.enumerated() {
            if index % 3 == 1 {
                #expect(throws: Refused.self) { try outcome.get() }
                #expect(try store.read { try $0.conversation("conversation-\(index)") } == nil)
            } else {
                #expect(try outcome.get() == "conversation-\(index)")
                #expect(try store.read { try $0.conversation("conversation-\(index)") } != nil)
                kept += 1
            }
        }
        #expect(try store.read { try $0.conversationCount() } == kept)
    }

    @Test func liveEventsOfABatchAreInIDOrderAndOnlyForCommittedWrites() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ConversationStore(
            path: directory.appendingPathComponent("events.sqlite").path, liveEventCapacity: 1000)
        struct Refused: Error {}
        let outcomes = Self.concurrentWrites(store, count: 6) { index, store in
            let caller = Caller(deviceId: "device-a")
            let id = try store.createConversation(id: "conversation-\(index)", title: nil, for: caller, now: 1).id
            if index == 3 { throw Refused() }
            return id
        }
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 5)
        let (resumption, lastId) = try store.liveEvents(after: 0, audiences: Caller(deviceId: "device-a").audiences)
        guard case .events(let events) = resumption else {
            Issue.record("expected events, got \(resumption)")
            return
        }
        #expect(events.count == 5)
        #expect(events.map(\.id) == events.map(\.id).sorted())
        #expect(events.last?.id == lastId)
    }
}

/// Outcomes written by many threads.
final class LockedOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<String, any Error>?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ outcome: Result<String, any Error>) { lock.withLock { slots[index] = outcome } }
    var values: [Result<String, any Error>] { lock.withLock { slots.map { $0! } } }
}
