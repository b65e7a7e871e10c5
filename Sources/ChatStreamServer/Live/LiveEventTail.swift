// LiveEventTail: the newest live events in memory, so the subscribers a commit wakes read them
// without a query (with 256 subscribers, one chat's five events would otherwise be 1,280 queries
// contending with the writers). The events table stays the record: a subscriber whose cursor is
// older than the tail reaches back to it (a resume after a reconnect or a restart).
//
// The tail holds every event after `coveredFrom`, in ID order, at most `capacity` of them and at
// most `byteCapacity` bytes of their JSON (the newest is always kept), so its memory is bounded in
// bytes whatever the events carry. Events
// are appended by the store's writer right after their transaction committed, still under the
// writer's lock, so they arrive in ID order and a rolled-back transaction adds nothing.

import Synchronization

/// A bounded in-memory copy of the newest live events.
final class LiveEventTail: Sendable {
    private struct State {
        /// Every event after this ID is in ``events``.
        var coveredFrom: Int
        var lastId: Int
        /// The events held are `events[head...]`: the slots before `head` were dropped (emptied at
        /// once) and are removed from the array only once they are half of it (removing from the
        /// front of an array moves everything after it: once the tail was full, every commit did).
        var events: [(audience: String, record: LiveEventRecord, bytes: Int)] = []
        var head = 0
        /// The bytes of JSON of the events held.
        var bytes = 0
        /// Per audience, the newest ID the events table pruned: a resume from before it is `reset`,
        /// as the table would answer, even while the tail still holds the events.
        var evictedThrough: [String: Int]
    }

    private let state: Mutex<State>
    private let capacity: Int
    private let byteCapacity: Int

    /// An empty tail after event `lastId` (the log's newest) with the table's evictions, holding at
    /// most `capacity` events and `byteCapacity` bytes of their JSON.
    init(lastId: Int, evictedThrough: [String: Int], capacity: Int = 4096, byteCapacity: Int = 8 << 20) {
        state = Mutex(State(coveredFrom: lastId, lastId: lastId, evictedThrough: evictedThrough))
        self.capacity = max(1, capacity)
        self.byteCapacity = max(0, byteCapacity)
    }

    /// The number of events held and the bytes of their JSON.
    var held: (count: Int, bytes: Int) { state.withLock { ($0.events.count - $0.head, $0.bytes) } }

    /// Appends events just committed (in ID order, newer than any held) and the evictions their
    /// transaction made. Returns the events dropped to make room, for the caller to let go outside
    /// the lock (the store's committer hands them to a write's caller: PendingWrite.leftovers).
    @discardableResult
    func append(
        _ recorded: [(audience: String, record: LiveEventRecord, bytes: Int)], evictions: [String: Int]
    ) -> [LiveEventRecord] {
        guard !recorded.isEmpty || !evictions.isEmpty else { return [] }
        return state.withLock { state -> [LiveEventRecord] in
            for (audience, id) in evictions {
                state.evictedThrough[audience] = max(state.evictedThrough[audience] ?? 0, id)
            }
            guard !recorded.isEmpty else { return [] }
            state.events += recorded
            state.bytes += recorded.reduce(0) { $0 + $1.bytes }
            state.lastId = recorded.last!.record.id
            // The first event kept: past the count bound, then past the bytes bound (the newest stays).
            let end = state.events.count
            var first = max(state.head, end - capacity)
            var bytes = state.bytes
            for index in state.head..<first { bytes -= state.events[index].bytes }
            while bytes > byteCapacity, first < end - 1 {
                bytes -= state.events[first].bytes
                first += 1
            }
            var dropped: [LiveEventRecord] = []
            if first > state.head {
                state.coveredFrom = state.events[first - 1].record.id
                // Dropped slots are emptied at once and their events handed to the caller, so the
                // bytes held stay within the bound once the caller lets them go.
                dropped.reserveCapacity(first - state.head)
                for index in state.head..<first {
                    dropped.append(state.events[index].record)
                    state.events[index] = (
                        audience: "", record: LiveEventRecord(id: 0, type: "", data: .null), bytes: 0
                    )
                }
                state.head = first
                state.bytes = bytes
                if state.head > state.events.count / 2 {
                    state.events.removeFirst(state.head)
                    state.head = 0
                }
            }
            return dropped
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
            var low = state.head
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
