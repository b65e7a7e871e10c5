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

    /// A store loaded from `persistence` (empty when its file does not exist yet) or in memory.
    init(persistence: StorePersistence?) throws {
        self.persistence = persistence
        state = Mutex(try persistence?.load() ?? StoreState())
    }

    /// Runs `body` on the state without changing it.
    func read<R: Sendable>(_ body: (StoreState) throws -> R) throws -> R {
        try state.withLock { state in try body(state) }
    }

    /// Runs `body` on the state and saves the result (also when `body` throws after changing it).
    func update<R: Sendable>(_ body: (inout StoreState) throws -> R) throws -> R {
        try state.withLock { state in
            defer { persistence?.save(state) }
            return try body(&state)
        }
    }
}

extension StoreState {
    /// The conversation `id` if `caller` may use it; 404 or 403 otherwise.
    func conversation(_ id: String, for caller: Caller) throws(APIError) -> ConversationRecord {
        guard let conversation = conversations[id] else { throw APIError.conversationNotFound }
        guard caller.owns(conversation) else { throw APIError.ownership }
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
