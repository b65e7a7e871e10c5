// StorePersistence: the one-time import of the earlier data file format (the whole state as one
// JSON document) into the SQLite database.
//
// When the path given to `serve --data` holds such a JSON file, it is read, written into a new
// database beside it (`<path>.importing`, one transaction), the JSON file is renamed to
// `<path>.json-backup`, and the new database is renamed into place. A crash at any point leaves
// the JSON file (imported again on the next start), the finished database, or, between the two
// renames, the backup beside the finished `<path>.importing`: the next start completes that last
// rename instead of starting on an empty store.

import ChatStream
import ChatStreamSQLite
import Foundation

/// Imports a JSON data file of the earlier format.
enum StorePersistence {
    /// The earlier format's document.
    struct LegacyState: Decodable {
        var sequence: Int
        var conversations: [String: LegacyConversation]
    }

    struct LegacyConversation: Decodable {
        var id: String
        var title: String?
        var createdAt: Int
        var updatedAt: Int
        var updateSequence: Int
        var ownerDevice: String
        var ownerUser: String?
        var status: String
        var messages: [LegacyMessage]
        var tags: [String: [String]]
        var lastRead: [String: Int]
    }

    struct LegacyMessage: Decodable {
        var id: String
        var role: String
        var parts: [JSONTree]
        var createdAt: Int
        var sequence: Int
    }

    /// Where the imported JSON file is kept.
    static func backupPath(for path: String) -> String { path + ".json-backup" }

    /// Imports the file at `path` when it exists and is not a SQLite database; throws when it is
    /// neither (the file is then left untouched).
    static func importLegacyFile(at path: String, options: SQLiteDatabase.Options) throws {
        let temporary = path + ".importing"
        if !FileManager.default.fileExists(atPath: path), FileManager.default.fileExists(atPath: backupPath(for: path)),
            SQLiteDatabase.isDatabaseFile(temporary)
        {
            // Cut between the renames: the database was finished (and checkpointed) before the first.
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
            return
        }
        guard FileManager.default.fileExists(atPath: path), !SQLiteDatabase.isDatabaseFile(path) else { return }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard !data.isEmpty else {
            try FileManager.default.removeItem(atPath: path)
            return
        }
        let state = try JSONDecoder().decode(LegacyState.self, from: data)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
        do {
            let database = try SQLiteDatabase(path: temporary, options: options)
            try database.migrate(StoreSchema.migrations)
            try database.transaction {
                let store = StoreTransaction(database: database)
                try write(state, into: store)
                try store.finish()
            }
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try? FileManager.default.removeItem(atPath: backupPath(for: path))
        try FileManager.default.moveItem(atPath: path, toPath: backupPath(for: path))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }

    /// The identity (owner key) a tag or read key of the JSON format names: `user:<sub>` for a
    /// signed-in user, else a device ID.
    static func identity(fromLegacyKey key: String) -> String {
        key.hasPrefix("user:")
            ? Caller.ownerKey(user: String(key.dropFirst(5)), device: "")
            : Caller.ownerKey(user: nil, device: key)
    }

    private static func write(_ state: LegacyState, into store: StoreTransaction) throws {
        for conversation in state.conversations.values.sorted(by: { $0.updateSequence < $1.updateSequence }) {
            try store.insert(
                ConversationRecord(
                    id: conversation.id, title: conversation.title, createdAt: conversation.createdAt,
                    updatedAt: conversation.updatedAt, updateSequence: conversation.updateSequence,
                    ownerDevice: conversation.ownerDevice, ownerUser: conversation.ownerUser,
                    status: conversation.status))
            for message in conversation.messages {
                let json = JSONTree.array(message.parts).jsonText
                let text = MessageRecord.text(of: message.parts)
                try store.database.run(
                    """
                    INSERT INTO messages(seq, id, conversation_id, role, parts, visible, search_text, created_at, size,
                        preview) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                    """,
                    [
                        message.sequence, message.id, conversation.id, message.role, json, !message.parts.isEmpty,
                        text.fastLowercased, message.createdAt, json.utf8.count, MessagePreview.stored(text),
                    ])
                try store.database.run(
                    "UPDATE conversations SET stored_bytes = stored_bytes + ?2 WHERE id = ?1",
                    [conversation.id, json.utf8.count])
            }
            for (key, tags) in conversation.tags {
                try store.setTags(tags, of: conversation.id, identity: identity(fromLegacyKey: key))
            }
            for (key, sequence) in conversation.lastRead {
                try store.markRead(conversation.id, identity: identity(fromLegacyKey: key), upTo: sequence)
            }
        }
        try store.database.run("UPDATE counters SET value = ?1 WHERE name = 'sequence'", [state.sequence])
    }
}
