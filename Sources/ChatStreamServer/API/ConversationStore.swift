// ConversationStore: the server's state in one SQLite database (a file in WAL mode, or in memory).
//
// Handlers run on many connection threads at once; the store holds one connection behind a mutex,
// so every `read` and `write` runs alone and sees a consistent state. A `write` is one transaction:
// it commits before the handler answers, and when its body or the commit throws nothing of it
// stays (the handler then answers 500, or the body's own API error). With `synchronous=FULL` a
// committed write survives a crash of the process and a power loss.

import ChatStream
import ChatStreamSQLite
import Foundation

/// The server's conversations in a SQLite database.
///
/// Other parts of the server reach the data through ``read(_:)`` and ``write(_:)`` and the typed
/// operations of ``StoreTransaction``; no SQL leaves the store's files.
final class ConversationStore: Sendable {
    private let database: SQLiteDatabase
    private let lock = NSLock()
    /// The database file, nil in memory.
    let path: String?

    /// Opens the database at `path` (created when missing; a JSON data file of the earlier format
    /// found there is imported first and kept beside it as `<path>.json-backup`), or an in-memory
    /// one when `path` is nil.
    init(path: String?, options: SQLiteDatabase.Options = .durable) throws {
        self.path = path
        if let path { try StorePersistence.importLegacyFile(at: path, options: options) }
        let database = try SQLiteDatabase(path: path ?? ":memory:", options: options)
        try database.migrate(StoreSchema.migrations)
        self.database = database
    }

    /// Runs `body` on the store without a write transaction (it must not change anything).
    func read<R>(_ body: (StoreTransaction) throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(StoreTransaction(database: database))
    }

    /// Runs `body` in one transaction: all of its changes are committed before this returns, or
    /// none when it throws (the error is rethrown).
    @discardableResult
    func write<R>(_ body: (StoreTransaction) throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        return try database.transaction { try body(StoreTransaction(database: database)) }
    }
}
