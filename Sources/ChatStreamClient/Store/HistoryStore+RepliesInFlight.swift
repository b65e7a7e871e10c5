// The replies-in-flight table: a streamed reply is written when its stream names it and deleted
// when it ends, so a reply the app was killed or suspended in is still there at the next launch,
// for ChatbaseClient.completeRepliesInFlight() (resume route or history) to finish into the store.

import ChatStreamSQLite
import Foundation

extension HistoryStore {
    /// Writes `reply` as in flight (nothing when its message ID is there already).
    func recordReplyInFlight(_ reply: ReplyInFlight, scope: String) throws {
        try write("recording a reply in flight") { database in
            try database.run(
                """
                INSERT INTO replies_in_flight(scope, message_id, conversation_id, client_message_id, user_text, started_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(scope, message_id) DO NOTHING
                """,
                [
                    scope, reply.messageId, reply.conversationId, reply.clientMessageId, reply.userText,
                    reply.startedAt.timeIntervalSince1970,
                ])
        }
    }

    /// Forgets the reply `messageId` (it ended, or it cannot be completed any more).
    func removeReplyInFlight(messageId: String, scope: String) throws {
        try write("forgetting a reply in flight") { database in
            try database.run(
                "DELETE FROM replies_in_flight WHERE scope = ?1 AND message_id = ?2", [scope, messageId])
        }
    }

    /// The replies in flight of `scope`, oldest first.
    func repliesInFlight(scope: String) throws -> [ReplyInFlight] {
        try access("reading the replies in flight") { database in
            try database.query(
                """
                SELECT message_id, conversation_id, client_message_id, user_text, started_at FROM replies_in_flight
                WHERE scope = ?1 ORDER BY started_at, rowid
                """, [scope]
            ) { row in
                ReplyInFlight(
                    conversationId: row.text(1), messageId: row.text(0), clientMessageId: row.optionalText(2),
                    userText: row.optionalText(3), startedAt: Date(timeIntervalSince1970: row.double(4)))
            }
        }
    }
}
