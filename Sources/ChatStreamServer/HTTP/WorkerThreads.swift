// WorkerThreads: threads that run blocking jobs (a connection's requests, a reply's generation)
// and, when one is done, wait a while for the next instead of ending.
//
// The server blocks on purpose (HTTPServer.swift says why), so each connection and each streamed
// reply holds a thread while it runs. Creating and ending a thread for each (two per streamed chat)
// cost the kernel's clone and exit and the allocator's per-thread caches on every request; here a
// thread that finished its job parks for up to `idleLifetime` and takes the next job handed to the
// pool, and only when none is parked is a new thread started. There is no cap: a job never waits
// for a thread (the server's own limits bound how many run at once).

import Dispatch
import Foundation
import Synchronization

/// A pool of threads for blocking jobs: ``run(_:)`` starts a job on a parked thread, or on a new one.
final class WorkerThreads: Sendable {
    /// One thread of the pool and the job handed to it while it was parked.
    private final class Worker: @unchecked Sendable {
        /// Set under the pool's lock by whoever takes this worker off the parked list.
        var job: (@Sendable () -> Void)?
        let handed = DispatchSemaphore(value: 0)
    }

    private struct State {
        var parked: [Worker] = []
        var started = 0
    }

    /// How long a thread with nothing to do waits for a job before it ends.
    let idleLifetime: Duration
    private let stackSize: Int
    private let name: String
    private let state = Mutex(State())

    /// A pool whose threads have `stackSize` bytes of stack and wait `idleLifetime` between jobs.
    init(name: String, stackSize: Int = 512 * 1024, idleLifetime: Duration = .seconds(10)) {
        self.name = name
        self.stackSize = stackSize
        self.idleLifetime = idleLifetime
    }

    /// The threads parked now, and how many threads the pool has started in all (for tests).
    var counts: (parked: Int, started: Int) { state.withLock { ($0.parked.count, $0.started) } }

    /// Runs `job` on a parked thread, or on a new thread when none is parked.
    func run(_ job: @escaping @Sendable () -> Void) {
        let worker = state.withLock { state -> Worker? in
            guard let worker = state.parked.popLast() else {
                state.started += 1
                return nil
            }
            worker.job = job
            return worker
        }
        if let worker {
            worker.handed.signal()
            return
        }
        let thread = Thread { [self] in work(Worker(), first: job) }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    /// A thread's life: its first job, then each job handed to it while parked, until it waits
    /// `idleLifetime` for one in vain.
    private func work(_ worker: Worker, first: @escaping @Sendable () -> Void) {
        var job: (@Sendable () -> Void)? = first
        while let current = job {
            current()
            job = nil
            state.withLock { $0.parked.append(worker) }
            let timeout = DispatchTime.now() + .milliseconds(Int(idleLifetime.pollMilliseconds))
            if worker.handed.wait(timeout: timeout) == .timedOut {
                // Still parked: leave. Taken meanwhile: its job is (or is about to be) signalled.
                let leaving = state.withLock { state -> Bool in
                    guard let index = state.parked.firstIndex(where: { $0 === worker }) else { return false }
                    state.parked.remove(at: index)
                    return true
                }
                if leaving { return }
                worker.handed.wait()
            }
            job = state.withLock { _ in
                defer { worker.job = nil }
                return worker.job
            }
        }
    }
}
