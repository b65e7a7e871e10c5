// LiveEventSignal: wakes the threads serving `GET .../events` when the store committed new events.
//
// Each subscriber registers a semaphore; a commit signals all of them (extra signals only cause an
// extra look at the log). Closing wakes everyone for good, so `ChatAPIServer.stop()` never waits
// on a subscriber's heartbeat.

import Dispatch
import Synchronization

/// Wakes live-event subscribers after a commit.
final class LiveEventSignal: Sendable {
    private struct State {
        var waiters: [Int: DispatchSemaphore] = [:]
        var nextId = 0
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Registers a subscriber; returns its ticket and semaphore, or nil once closed.
    func subscribe() -> (Int, DispatchSemaphore)? {
        state.withLock { state in
            guard !state.isClosed else { return nil }
            let ticket = state.nextId
            state.nextId += 1
            let semaphore = DispatchSemaphore(value: 0)
            state.waiters[ticket] = semaphore
            return (ticket, semaphore)
        }
    }

    /// Forgets a subscriber.
    func unsubscribe(_ ticket: Int) {
        _ = state.withLock { $0.waiters.removeValue(forKey: ticket) }
    }

    /// The number of subscribers registered.
    var subscriberCount: Int { state.withLock { $0.waiters.count } }

    /// Whether ``close()`` was called.
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Wakes every subscriber.
    func notify() {
        for semaphore in state.withLock({ Array($0.waiters.values) }) { semaphore.signal() }
    }

    /// Wakes every subscriber for the last time; later subscriptions are refused.
    func close() {
        state.withLock { $0.isClosed = true }
        notify()
    }

    /// Opens again after ``close()`` (a server started again).
    func reopen() {
        state.withLock { $0.isClosed = false }
    }
}
