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

/// The executor the network tests' async code prefers (``BlockingTestExecutor``'s threads).
///
/// Many of these tests go in lock step with a server handler that waits for the client to have
/// read a chunk, under an idle timeout. The cooperative pool has one thread per core, and a
/// Dispatch queue's blocks share the same few threads; a few long synchronous tests running at
/// once would hold all of them, the client would read nothing, and the timeout would fire though
/// nothing is wrong with the transport.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
public typealias NetworkTestExecutor = BlockingTestExecutor
