// The outbox table: a message is written before its first attempt and deleted once the server
// has taken it, so a message whose answer never came (the app stopped) is still there at the next
// launch and is resent with the same clientMessageId (the server stores it once).

import ChatStreamSQLite
import Foundation

extension HistoryStore {
    /// Writes `message` as pending unless its `clientMessageId` is there already.
    func enqueue(_ message: OutboxMessage, scope: String) throws {
        try write("queueing a message") { database in
            try database.run(
                """
                INSERT INTO outbox(scope, client_message_id, conversation_id, text, created_at, state, attempts, last_error)
                VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, NULL) ON CONFLICT(scope, client_message_id) DO NOTHING
                """,
                [
                    scope, message.clientMessageId, message.conversationId, message.text,
                    message.createdAt.timeIntervalSince1970,
                ])
        }
    }

    /// Removes a message (delivered, or discarded).
    func dequeue(clientMessageId: String, scope: String) throws {
        try write("removing a queued message") { database in
            try database.run(
                "DELETE FROM outbox WHERE scope = ?1 AND client_message_id = ?2", [scope, clientMessageId])
        }
    }

    /// Notes a failed attempt: still pending (a passing failure) or failed (refused).
    func noteAttempt(clientMessageId: String, failed: Bool, error: String, scope: String) throws {
        try write("noting a failed send") { database in
            try database.run(
                """
                UPDATE outbox SET attempts = attempts + 1, last_error = ?3, state = ?4
                WHERE scope = ?1 AND client_message_id = ?2
                """, [scope, clientMessageId, error, failed ? "failed" : "pending"])
        }
    }

    /// The outbox of `scope`, oldest first.
    func outbox(scope: String) throws -> [OutboxMessage] {
        try access("reading the outbox") { database in
            try database.query(
                """
                SELECT client_message_id, conversation_id, text, created_at, state, attempts, last_error FROM outbox
                WHERE scope = ?1 ORDER BY created_at, rowid
                """, [scope]
            ) { row in
                OutboxMessage(
                    clientMessageId: row.text(0), conversationId: row.optionalText(1), text: row.text(2),
                    createdAt: Date(timeIntervalSince1970: row.double(3)),
                    state: OutboxMessage.State(rawValue: row.text(4)) ?? .pending, attempts: row.int(5),
                    lastError: row.optionalText(6))
            }
        }
    }

    /// Whether `scope` has a pending message (cheap: checked after every successful request).
    func hasPending(scope: String) -> Bool {
        (try? access("reading the outbox") { database in
            try database.first(
                "SELECT 1 FROM outbox WHERE scope = ?1 AND state = 'pending' LIMIT 1", [scope]
            ) { _ in true }
        }) == true
    }
}
