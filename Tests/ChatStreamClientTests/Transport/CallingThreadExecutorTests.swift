// CallingThreadExecutor: the command-line tool's commands run on its main thread, every step of
// them (after a yield, after a resumption from another thread, in an `async let` child), and a
// task that prefers the executor once its run has ended still runs.

import ChatStreamClient
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The calling thread's ID.
private func currentThreadID() -> UInt64 {
    #if canImport(Glibc)
        UInt64(pthread_self())
    #else
        var id: UInt64 = 0
        pthread_threadid_np(nil, &id)
        return id
    #endif
}

@Suite("CallingThreadExecutor")
struct CallingThreadExecutorTests {
    /// Calls `body` on a thread of its own: that thread's ID and what `body` returned.
    static func onAThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> (thread: UInt64, result: T) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: (currentThreadID(), body())) }
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func everyStepOfTheOperationRunsOnTheThreadThatCallsRun() async {
        let executor = CallingThreadExecutor()
        let (caller, steps) = await Self.onAThread {
            executor.run { () -> [UInt64] in
                var steps = [currentThreadID()]
                await Task.yield()
                steps.append(currentThreadID())
                // Resumed by another thread, as a transport's thread resumes a request.
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Thread.detachNewThread {
                        usleep(2_000)
                        continuation.resume()
                    }
                }
                steps.append(currentThreadID())
                async let child = currentThreadID()
                steps.append(await child)
                return steps
            }
        }
        #expect(steps == Array(repeating: caller, count: 4), "the caller is \(caller)")
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test(.timeLimit(.minutes(1))) func aTaskThatPrefersTheExecutorAfterItsRunStillRuns() async {
        let executor = CallingThreadExecutor()
        let (_, answer) = await Self.onAThread { executor.run { 42 } }
        #expect(answer == 42)
        // Its thread has gone back to the caller: queued there, this would never run (time limit).
        let later = await Task(executorPreference: executor) { answer + 1 }.value
        #expect(later == 43)
    }
}
