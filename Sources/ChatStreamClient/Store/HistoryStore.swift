// HistoryStore: the client's local history in one SQLite database (the package's ChatStreamSQLite
// layer: prepared statements, transactions, migrations).
//
// Every row carries a scope, `<server>|<agent>|<identity>` (identity `u:<userId>`, `t:<token hash>`
// before the server named the user, or `d:<deviceId>` for the anonymous device), so one user's
// cache is never read for another, nor for the device. Tables: conversations, messages and their
// parts (one row per part), the page cursors the server gave, the current conversation per agent,
// and the outbox. The connection is used behind a mutex; each write is one transaction.

import ChatStream
import ChatStreamSQLite
import Foundation
import Synchronization

/// The client's local history: conversations, messages, page cursors, the current conversation
/// and the outbox, in a SQLite database that survives restarts. ChatStream's own.
///
/// A ``ChatbaseClient`` opens ``platformDefault`` unless given another store or `store: nil`.
/// Every answer the client receives updates it; list and message calls read it with a
/// ``HistorySource``. Rows are kept apart by server, agent and identity.
///
/// ```swift
/// let store = try HistoryStore(path: "/tmp/history.sqlite")
/// let client = ChatbaseClient(agentId: "my-agent", baseURL: url, store: store)
/// let cached = try await client.listConversations(limit: 20, source: .local)
/// ```
public final class HistoryStore: Sendable {
    /// The database file (`:memory:` for ``inMemory(serverName:)``).
    public let path: String
    /// The name the server's history is filed under (nil: the client's base URL).
    public let serverName: String?
    let database: Mutex<SQLiteDatabase>
    /// Whether a background checkpoint is under way (HistoryStore+Checkpoint).
    let checkpointing = Atomic<Bool>(false)

    /// Opens (creating when missing) the store at `path`.
    ///
    /// - Parameters:
    ///   - path: the SQLite file; its directory is created (private to the user) when missing.
    ///   - serverName: the name to file the server's history under instead of the base URL (for
    ///     a server whose address changes between runs, such as an embedded one).
    /// - Throws: ``ChatError/decodingFailed(_:)`` (`local history store: ...`) when the file cannot be opened or is not a
    ///   store this version can read.
    public init(path: String, serverName: String? = nil) throws {
        self.path = path
        self.serverName = serverName
        do {
            if path != ":memory:" {
                let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            let database = try SQLiteDatabase(path: path, options: Self.options)
            try database.migrate(Self.migrations)
            self.database = Mutex(database)
        } catch {
            throw ChatError.store("cannot open \(path): \(error)")
        }
    }

    /// How the store's connections are set up.
    static var options: SQLiteDatabase.Options {
        var options = SQLiteDatabase.Options()
        // A cache: a commit lost to power loss is refetched; a crash of the process loses nothing.
        options.synchronousFull = false
        // Opened at every launch: not read whole (quick_check reads every page, 2,343 reads of a
        // 9 MB store per `chatstream chat`). A damaged page fails the call that reads it.
        options.checksAtOpen = false
        return options
    }

    /// A store in memory only (gone with the process; for tests and previews).
    public static func inMemory(serverName: String? = nil) -> HistoryStore {
        // Opening an in-memory database cannot fail short of memory exhaustion.
        try! HistoryStore(path: ":memory:", serverName: serverName)
    }

    /// Where ``platformDefault`` lives: `history.sqlite` in ``ChatStreamPaths/dataDirectory``
    /// (`$XDG_DATA_HOME/chatstream/` on Linux, Application Support on Apple platforms).
    public static var defaultPath: String {
        ChatStreamPaths.file("history.sqlite", in: ChatStreamPaths.dataDirectory).path
    }

    private static let opened = Mutex<[String: HistoryStore]>([:])

    /// The store at ``defaultPath``, opened once per process; nil when it cannot be opened (the
    /// client then works without a cache).
    public static var platformDefault: HistoryStore? {
        let path = defaultPath
        return opened.withLock { stores in
            if let store = stores[path] { return store }
            guard let store = try? HistoryStore(path: path) else { return nil }
            stores[path] = store
            return store
        }
    }

    /// Runs `body` with the connection, mapping SQLite's failures to ``ChatError/decodingFailed(_:)`` (`local history store: ...`).
    func access<R: Sendable>(_ what: String, _ body: (SQLiteDatabase) throws -> R) throws -> R {
        do {
            return try database.withLock { database in try body(database) }
        } catch let error as ChatError {
            throw error
        } catch {
            throw ChatError.store("\(path) (\(what)): \(error)")
        }
    }

    /// Runs `body` in one transaction.
    func write(_ what: String, _ body: (SQLiteDatabase) throws -> Void) throws {
        try access(what) { database in try database.transaction { try body(database) } }
    }

    /// Deletes every row of `scopes` (conversations, messages, cursors, current conversation, outbox).
    func clear(scopes: [String]) throws {
        try write("clearing") { database in
            for scope in scopes {
                for table in [
                    "conversations", "messages", "message_parts", "page_cursors", "current_conversation", "outbox",
                ] {
                    try database.run("DELETE FROM \(table) WHERE scope = ?1", [scope])
                }
            }
        }
    }

    /// Files every row of scope `from` under scope `to` (a row `to` already has is replaced),
    /// except the page cursors, which are the old identity's listing and are deleted: the
    /// server moved the device's conversations to the user (`verify`).
    func move(scope from: String, to: String) throws {
        guard from != to else { return }
        try write("moving rows to the signed-in user") { database in
            for table in ["conversations", "messages", "message_parts", "current_conversation", "outbox"] {
                try database.run("UPDATE OR REPLACE \(table) SET scope = ?2 WHERE scope = ?1", [from, to])
            }
            try database.run("DELETE FROM page_cursors WHERE scope = ?1", [from])
        }
    }

    /// How many conversations are cached for `scope` (tests and the CLI).
    func conversationCount(scope: String) throws -> Int {
        try access("counting") {
            try $0.first("SELECT COUNT(*) FROM conversations WHERE scope = ?1", [scope]) { $0.int(0) } ?? 0
        }
    }
}
