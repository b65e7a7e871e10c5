// Waiting: small helpers for tests that watch a server's threads from async test code.

import Dispatch
import Synchronization

/// Polls `condition` until it holds or `timeout` passes; the result is whether it held.
public func eventually(timeout: Duration = .seconds(60), _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A value shared between a handler thread and the test.
public final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    /// A box holding `value`.
    public init(_ value: Value) { storage = Mutex(value) }
    /// The value now.
    public var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
    /// Changes the value under the lock.
    public func update(_ change: (inout Value) -> Void) { storage.withLock { change(&$0) } }
}

/// Runs the network tests' async code on Dispatch's threads rather than on the cooperative pool.
///
/// Many of these tests go in lock step with a server handler that waits for the client to have
/// read a chunk, under an idle timeout. Swift Testing runs synchronous tests on the cooperative
/// pool, which has one thread per core; a few long synchronous tests running at once (the corpus
/// suites decode every stream at every chunking) would hold all of them, the client would read
/// nothing, and the timeout would fire though nothing is wrong with the transport.
public final class NetworkTestExecutor: TaskExecutor {
    /// The one executor.
    public static let shared = NetworkTestExecutor()

    private let queue = DispatchQueue(label: "chatstream.tests.network", attributes: .concurrent)

    /// Runs `job` on a Dispatch thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
