// Waiting: small helpers for tests that watch a server's threads from async test code.

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
