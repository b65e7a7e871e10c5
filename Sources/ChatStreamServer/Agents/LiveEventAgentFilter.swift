// LiveEventAgentFilter: which of a caller's live events its route's agent hears. Conversations are
// kept per agent, so `GET /agents/{agentId}/events` sends only the events of that agent's
// conversations (and those naming none, as `reset`). The log is per identity, not per agent, so
// each subscriber looks each conversation's agent up once and remembers it; a server with one
// agent has nothing to filter and looks nothing up. Used by the handler's thread for the opening,
// then only by the LiveStreamWriter's thread it is handed to (hence unchecked Sendable).

import ChatStream

/// Decides, for one subscriber, whether an event concerns a conversation with its agent.
final class LiveEventAgentFilter: @unchecked Sendable {
    private let agentId: String?
    private let store: ConversationStore
    /// Per conversation ID: whether it is the agent's.
    private var known: [String: Bool] = [:]

    init(caller: Caller, configuration: ChatAPIServer.Configuration, store: ConversationStore) {
        agentId = configuration.servedAgentIds.count > 1 ? caller.agentId : nil
        self.store = store
    }

    /// Whether the subscriber gets `record`.
    func admits(_ record: LiveEventRecord) -> Bool {
        guard let agentId else { return true }
        guard let id = record.data["conversation"]?["id"]?.stringValue ?? record.data["conversationId"]?.stringValue
        else { return true }
        if let answer = known[id] { return answer }
        // A conversation deleted since, or a store that cannot answer now: the event is sent.
        let owner = (try? store.read { try $0.conversation(id)?.agentId }) ?? nil
        let answer = owner == nil || owner == agentId
        known[id] = answer
        return answer
    }
}
