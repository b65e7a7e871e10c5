// BlockingAllowed: a suite trait that runs a suite's tests on threads of their own instead of the
// Swift concurrency runtime's cooperative pool.
//
// Why: on Linux the cooperative pool has one thread per core, two on the CI machine. Many tests
// block a thread on purpose (a synchronous request to a loopback server, a child process's
// output, `usleep` while polling a server's counters). Two such tests at once held both threads,
// and every other test's tasks, and the library's own (a client's retry timer, a live
// subscription's reconnect, a cancelled send), waited behind them: in CI's first run a cancelled
// wait ended 65 s late and a reply took 20 s to start. Tests of a suite marked
// `@Suite(.blockingAllowed)` prefer a task executor whose threads are added when all are busy,
// so a blocking test holds one of its own threads and the cooperative pool stays free.
//
// Example:
//
//     @Suite("The server's list route", .blockingAllowed)
//     struct ListRouteTests {
//         @Test func aPageHasTwentyRows() throws { ... }   // may block: it runs on its own thread
//     }

import Foundation
import Testing

/// Runs a suite's tests (recursively) on ``BlockingTestExecutor/shared``.
public struct BlockingAllowed: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite's own scope passes through; each test (and test case) gets the preference.
        guard testCase != nil else { return try await function() }
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
        } else {
            try await function()
        }
    }
}

extension Trait where Self == BlockingAllowed {
    /// The suite's tests may block their thread: they run on threads of their own.
    public static var blockingAllowed: Self { BlockingAllowed() }
}

/// A task executor that adds a thread whenever every thread it has is busy (up to `limit`).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
public final class BlockingTestExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor the tests of `.blockingAllowed` suites share.
    public static let shared = BlockingTestExecutor(limit: 48)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idle = 0
    private var threads = 0
    private let limit: Int

    /// An executor of at most `limit` threads, started as jobs arrive.
    public init(limit: Int) { self.limit = limit }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // More queued jobs than threads waiting for one: a thread more (a blocked thread is busy).
        if jobs.count > idle && threads < limit {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = "blocking-test-\(threads)"
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        condition.lock()
        while true {
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
            condition.lock()
        }
    }
}
