// ChatAPIServer+Import: writing many stored conversations at once (package access only).
//
// One transaction, no live events, no quotas, no per-change bookkeeping: what a tool filling a
// store needs (the store-scaling bench seeds its stores with it, see chatstream-store-bench's
// Seeding.swift). A real write goes through the routes.

import ChatStream

extension ChatAPIServer {
    /// A conversation to import: whose it is (an anonymous device of the first served agent), its
    /// title, and its messages in order.
    package struct ImportedConversation: Sendable {
        /// One message: `"user"` or `"assistant"`, and its text.
        package struct Message: Sendable {
            package var role: String
            package var text: String
            package init(role: String, text: String) {
                self.role = role
                self.text = text
            }
        }

        package var deviceId: String
        package var title: String?
        package var messages: [Message]

        package init(deviceId: String, title: String?, messages: [Message]) {
            self.deviceId = deviceId
            self.title = title
            self.messages = messages
        }
    }

    /// Writes `conversations` into the store in one transaction, without live events; each gets a
    /// new ID and the current time.
    package func importConversations(_ conversations: some Sequence<ImportedConversation>) throws {
        let now = ChatAPIHandlers.now
        let agentId = configuration.servedAgentIds[0]
        try handlers.store.write(recordingEvents: false) { store in
            for conversation in conversations {
                let caller = Caller(deviceId: conversation.deviceId, agentId: agentId)
                let id = ChatAPIHandlers.newID()
                _ = try store.createConversation(id: id, title: conversation.title, for: caller, now: now)
                for message in conversation.messages {
                    try store.appendMessage(
                        id: ChatAPIHandlers.newID(), role: message.role,
                        parts: [AssembledPart.text(message.text).jsonValue], to: id, now: now)
                }
            }
        }
    }
}
