// WorkerThreads: a finished job's thread takes the next job instead of a new thread starting,
// jobs that overlap each get a thread, and a thread with nothing to do ends after its idle lifetime.

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import ChatStreamServer

@Suite("Worker threads", .blockingAllowed)
struct WorkerThreadsTests {
    @Test func aParkedThreadTakesTheNextJob() {
        let pool = WorkerThreads(name: "test", idleLifetime: .seconds(30))
        let ran = Atomic<Int>(0)
        for round in 1...20 {
            let done = DispatchSemaphore(value: 0)
            pool.run {
                ran.add(1, ordering: .relaxed)
                done.signal()
            }
            done.wait()
            // The thread parks after its job: wait for it, so the next job finds it parked.
            #expect(eventually(within: 5) { pool.counts.parked == 1 }, "round \(round)")
        }
        #expect(ran.load(ordering: .relaxed) == 20)
        #expect(pool.counts.started == 1)
    }

    @Test func overlappingJobsEachGetAThreadAndIdleThreadsEnd() {
        let pool = WorkerThreads(name: "test", idleLifetime: .milliseconds(100))
        let release = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0)
        for _ in 0..<4 {
            pool.run {
                running.add(1, ordering: .relaxed)
                release.wait()
            }
        }
        #expect(eventually(within: 5) { running.load(ordering: .relaxed) == 4 }, "four blocked jobs run at once")
        #expect(pool.counts.started == 4)
        for _ in 0..<4 { release.signal() }
        #expect(eventually(within: 5) { pool.counts.parked == 4 })
        // A hundred milliseconds later each has ended.
        #expect(eventually(within: 5) { pool.counts.parked == 0 })
        let after = DispatchSemaphore(value: 0)
        pool.run { after.signal() }
        #expect(after.wait(timeout: .now() + 5) == .success)
        #expect(pool.counts.started == 5)
    }
}
