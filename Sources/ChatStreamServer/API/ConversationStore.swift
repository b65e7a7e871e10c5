// ConversationStore: the server's state behind a mutex, saved after every change.
//
// Handlers run on many connection threads at once; every read and change happens inside
// `read` or `update`, which hold the lock for the whole operation, so checks and changes are
// atomic. `update` saves while still holding the lock, so saves happen in change order.

import ChatStream
import Synchronization

/// The server's conversations, guarded by a mutex and optionally persisted.
final class ConversationStore: Sendable {
    private let state: Mutex<StoreState>
    private let persistence: StorePersistence?
    /// Live events held per audience; 0 records none (the live extension is off).
    let liveEventCapacity: Int
    /// Wakes live-event subscribers after a transaction that recorded events committed.
    let liveEventSignal = LiveEventSignal()

    /// A store loaded from `persistence` (empty when its file does not exist yet) or in memory,
    /// holding the last `liveEventCapacity` live events of each audience.
    init(persistence: StorePersistence?, liveEventCapacity: Int = 0) throws {
        self.persistence = persistence
        self.liveEventCapacity = liveEventCapacity
        state = Mutex(try persistence?.load() ?? StoreState())
    }

    /// Runs `body` on the state without changing it.
    func read<R: Sendable>(_ body: (StoreState) throws -> R) throws -> R {
        try state.withLock { state in try body(state) }
    }

    /// Runs `body` on the state, records the live events of what it changed, and saves the result
    /// (also when `body` throws after changing it). Subscribers are woken after the commit.
    func update<R: Sendable>(_ body: (inout StoreState) throws -> R) throws -> R {
        let capacity = liveEventCapacity
        var recorded = false
        defer { if recorded { liveEventSignal.notify() } }
        return try state.withLock { state in
            let before = state.conversations
            let lastEvent = state.liveEvents?.lastId
            defer {
                if capacity > 0 { state.recordLiveEvents(since: before, capacity: capacity) }
                recorded = state.liveEvents?.lastId != lastEvent
                persistence?.save(state)
            }
            return try body(&state)
        }
    }

    /// Records one live event about `conversationId` that changes no conversation (typing).
    func recordLiveEvent(type: String, data: JSONTree, conversationId: String) {
        guard liveEventCapacity > 0 else { return }
        _ = try? update { state in
            state.recordLiveEvent(type: type, data: data, conversationId: conversationId, capacity: liveEventCapacity)
        }
    }

    /// What a subscriber of `audiences` gets after event `id`, and the log's last ID.
    func liveEvents(after id: Int, audiences: [String]) -> (LiveEventLog.Resumption, lastId: Int) {
        state.withLock { state in
            let log = state.liveEvents ?? LiveEventLog()
            return (log.events(after: id, audiences: audiences), log.lastId)
        }
    }
}

extension StoreState {
    /// The conversation `id` if `caller` may use it; 404 or 403 otherwise.
    func conversation(_ id: String, for caller: Caller) throws(APIError) -> ConversationRecord {
        guard let conversation = conversations[id] else { throw APIError.conversationNotFound }
        // Another identity's conversation answers exactly as a missing one (no 403 that confirms it exists).
        guard caller.owns(conversation) else { throw APIError.conversationNotFound }
        return conversation
    }

    /// Changes the conversation `id` if `caller` may use it; 404 or 403 otherwise.
    mutating func withConversation<R>(
        _ id: String, for caller: Caller, _ body: (inout ConversationRecord) throws -> R
    ) throws -> R {
        _ = try conversation(id, for: caller)
        return try body(&conversations[id]!)
    }

    /// Marks a conversation changed now (bumps its list position).
    mutating func touch(_ id: String, now: Int) {
        let sequence = nextSequence()
        conversations[id]?.updatedAt = now
        conversations[id]?.updateSequence = sequence
    }
}
