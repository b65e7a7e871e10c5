// ChatAPIServer+Benchmark: filling a store quickly for the store-scaling bench (package access only).

import ChatStream

extension ChatAPIServer {
    /// Adds `count` conversations, each with a user message and a reply, spread over `devices`
    /// anonymous devices named `seed-device-<n>`, in one transaction and without live events.
    /// For the bench: it skips the quotas and the per-change bookkeeping a real write does.
    package func seedConversations(count: Int, devices: Int) throws {
        let now = ChatAPIHandlers.now
        try handlers.store.write(recordingEvents: false) { store in
            for index in 0..<count {
                let caller = Caller(
                    deviceId: "seed-device-\(index % max(1, devices))", agentId: configuration.servedAgentIds[0])
                let id = ChatAPIHandlers.newID()
                _ = try store.createConversation(id: id, title: "Seeded conversation \(index)", for: caller, now: now)
                try store.appendMessage(
                    id: ChatAPIHandlers.newID(), role: "user",
                    parts: [AssembledPart.text("question number \(index) about the weather").jsonValue], to: id,
                    now: now)
                try store.appendMessage(
                    id: ChatAPIHandlers.newID(), role: "assistant",
                    parts: [AssembledPart.text("an answer to question \(index): sunny, 21 degrees").jsonValue],
                    to: id, now: now)
            }
        }
    }
}
