// Seeding: the conversations a store of the bench starts with, written through the server's
// bulk import (one transaction, no live events), so a store of 100 000 conversations fills in
// seconds.

import ChatStreamServer

extension ChatAPIServer {
    /// Adds `count` conversations, each with a user message and a reply, spread over `devices`
    /// anonymous devices named `seed-device-<n>`.
    func seedConversations(count: Int, devices: Int) throws {
        try importConversations(
            (0..<count).lazy.map { index in
                ImportedConversation(
                    deviceId: "seed-device-\(index % max(1, devices))", title: "Seeded conversation \(index)",
                    messages: [
                        .init(role: "user", text: "question number \(index) about the weather"),
                        .init(role: "assistant", text: "an answer to question \(index): sunny, 21 degrees"),
                    ])
            })
    }
}
