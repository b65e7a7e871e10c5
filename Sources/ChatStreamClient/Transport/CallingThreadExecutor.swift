// CallingThreadExecutor: runs an asynchronous operation to its end on the thread that calls
// `run`, as that thread's only work (the command-line tool's commands, on its main thread).
//
// The operation's task prefers this executor, so its nonisolated code (and its `async let`
// children's) runs on the calling thread; what resumes it from another thread (a transport's
// thread handing over a response) queues a job and wakes the calling thread. Without it, the task
// starts on a thread of the concurrency runtime's pool, which the runtime must create and wake at
// every step while the main thread waits: under a parallel build, `chatstream help` took 5.4-8.0 ms
// that way and 4.0 ms this way, and `chatstream chat` 1.035-1.092 of curl's time against
// 1.004-1.028 (BENCHMARKS.md, "Start-up"). The executor is for a thread with nothing else to do:
// the operation must not block it waiting for work that needs the same thread.

import Dispatch
import Synchronization

/// An executor served by the thread that calls ``run(_:)``.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
package final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        /// The operation has ended: jobs that still come go to the global concurrent executor.
        var ended = false
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    /// An executor for the thread that will call ``run(_:)``.
    package init() {}

    /// Runs `operation` on the calling thread, which serves nothing else meanwhile, and returns
    /// its result once it has ended (once per executor). A task that still prefers the executor
    /// afterwards runs on the global concurrent executor.
    package func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let result = Outcome<T>()
        Task(executorPreference: self) { [self] in
            let value = await operation()
            result.value.withLock { $0 = value }
            state.withLock { $0.ended = true }
            ready.signal()
        }
        serve()
        return result.value.withLock { $0! }
    }

    /// What the operation returned.
    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let queued = state.withLock { state in
            guard !state.ended else { return false }
            state.jobs.append(unowned)
            return true
        }
        if queued {
            ready.signal()
        } else {
            globalConcurrentExecutor.enqueue(ExecutorJob(unowned))
        }
    }

    /// Runs the queued jobs until the operation has ended.
    private func serve() {
        var batch: [UnownedJob] = []
        while true {
            let ended = state.withLock { state in
                swap(&state.jobs, &batch)
                return state.ended
            }
            if batch.isEmpty {
                if ended { return }
                ready.wait()
                continue
            }
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
