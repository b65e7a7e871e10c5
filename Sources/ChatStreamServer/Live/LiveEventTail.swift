// LiveEventTail: the newest live events in memory, so the subscribers a commit wakes read them
// without a query (with 256 subscribers, one chat's five events would otherwise be 1,280 queries
// contending with the writers). The events table stays the record: a subscriber whose cursor is
// older than the tail reaches back to it (a resume after a reconnect or a restart).
//
// The tail holds every event after `coveredFrom`, in ID order, at most `capacity` of them. Events
// are appended by the store's writer right after their transaction committed, still under the
// writer's lock, so they arrive in ID order and a rolled-back transaction adds nothing.

import Synchronization

/// A bounded in-memory copy of the newest live events.
final class LiveEventTail: Sendable {
    private struct State {
        /// Every event after this ID is in ``events``.
        var coveredFrom: Int
        var lastId: Int
        var events: [(audience: String, record: LiveEventRecord)] = []
        /// Per audience, the newest ID the events table pruned: a resume from before it is `reset`,
        /// as the table would answer, even while the tail still holds the events.
        var evictedThrough: [String: Int]
    }

    private let state: Mutex<State>
    private let capacity: Int

    /// An empty tail after event `lastId` (the log's newest) with the table's evictions, holding at
    /// most `capacity` events.
    init(lastId: Int, evictedThrough: [String: Int], capacity: Int = 4096) {
        state = Mutex(State(coveredFrom: lastId, lastId: lastId, evictedThrough: evictedThrough))
        self.capacity = max(1, capacity)
    }

    /// Appends events just committed (in ID order, newer than any held) and the evictions their
    /// transaction made.
    func append(_ recorded: [(audience: String, record: LiveEventRecord)], evictions: [String: Int]) {
        guard !recorded.isEmpty || !evictions.isEmpty else { return }
        state.withLock { state in
            for (audience, id) in evictions {
                state.evictedThrough[audience] = max(state.evictedThrough[audience] ?? 0, id)
            }
            guard !recorded.isEmpty else { return }
            state.events += recorded
            state.lastId = recorded.last!.record.id
            let excess = state.events.count - capacity
            if excess > 0 {
                state.coveredFrom = state.events[excess - 1].record.id
                state.events.removeFirst(excess)
            }
        }
    }

    /// The events of `audiences` after `id` and the newest ID, or nil when the tail does not
    /// reach back to `id` (then the events table answers).
    func events(after id: Int, audiences: [String]) -> (LiveEventResumption, lastId: Int)? {
        state.withLock { state in
            if id > state.lastId || id < 0 { return (.reset, state.lastId) }
            if audiences.isEmpty { return (.events([]), state.lastId) }
            for audience in audiences {
                if let evicted = state.evictedThrough[audience], evicted > id { return (.reset, state.lastId) }
            }
            guard id >= state.coveredFrom else { return nil }
            // Held events are in ID order: find the first one after `id` by bisection.
            var low = 0
            var high = state.events.count
            while low < high {
                let middle = (low + high) / 2
                if state.events[middle].record.id <= id { low = middle + 1 } else { high = middle }
            }
            let wanted = Set(audiences)
            let found = state.events[low...].filter { wanted.contains($0.audience) }.map(\.record)
            return (.events(found), state.lastId)
        }
    }
}
