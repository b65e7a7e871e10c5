// StreamedUpdates: a reply's deltas, tool calls and results on their way from the network to
// ConversationState on the main actor.
//
// The network side adds updates and never waits for the main actor; the first update into an
// empty queue schedules one main-actor turn, which takes every update queued by then and applies
// them in order. So a burst of deltas costs one executor hop, not one per delta, and the rows
// end exactly as applying each update alone would leave them.

import Synchronization

/// Updates of a streamed reply waiting for the main actor, in arrival order.
final class StreamedUpdates: Sendable {
    /// One update of a streamed reply.
    enum Update: Sendable {
        case text(String)
        case toolCall(ToolCallInfo)
        case toolResult(ToolResultInfo)
    }

    private let state = Mutex<(updates: [Update], scheduled: Bool)>(([], false))

    /// Queues `update`; true when the caller must schedule a turn to take it (none is pending).
    func add(_ update: Update) -> Bool {
        state.withLock { state in
            state.updates.append(update)
            defer { state.scheduled = true }
            return !state.scheduled
        }
    }

    /// Everything queued, oldest first (the next `add` schedules a new turn).
    func take() -> [Update] {
        state.withLock { state in
            state.scheduled = false
            defer { state.updates = [] }
            return state.updates
        }
    }
}
