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
        var observers: [@Sendable () -> Void] = []
        var nextId = 0
        var isClosed = false
    }

    private let state = Mutex(State())
    /// The live streams' subscribers, from their opening on (they wait on no semaphore).
    private let streams = Atomic<Int>(0)

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

    /// Calls `observer` after every commit that recorded events, and at ``close()`` (the live
    /// stream writer's wake-up; it must return at once).
    func observe(_ observer: @escaping @Sendable () -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Forgets a subscriber.
    func unsubscribe(_ ticket: Int) {
        _ = state.withLock { $0.waiters.removeValue(forKey: ticket) }
    }

    /// Counts a live stream's subscriber from its handler's opening (`1`) to its end (`-1`), in the
    /// handler or the live stream writer.
    func streamsChanged(by delta: Int) {
        streams.add(delta, ordering: .relaxed)
    }

    /// The number of subscribers: registered here, and held by the live stream writer.
    var subscriberCount: Int { state.withLock { $0.waiters.count } + streams.load(ordering: .relaxed) }

    /// Whether ``close()`` was called.
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Wakes every subscriber.
    func notify() {
        let (semaphores, observers) = state.withLock { (Array($0.waiters.values), $0.observers) }
        for semaphore in semaphores { semaphore.signal() }
        for observer in observers { observer() }
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
