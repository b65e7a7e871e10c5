// SQLiteDatabase: one connection to a SQLite database, with a cache of prepared statements,
// transactions and the schema version.
//
// A connection is not thread-safe: its owner serialises access (the server's and the client's
// stores keep theirs behind a mutex). Every statement is prepared once and reused, parameters are
// always bound (never spliced into SQL), and `transaction` commits the whole body or nothing.

internal import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connection to a SQLite database file (or an in-memory database).
///
/// Not thread-safe: it is `Sendable` so that a store can hold it, and every owner serialises its
/// use (behind a lock or an actor).
///
/// ```swift
/// let database = try SQLiteDatabase(path: "/tmp/x.sqlite", options: .durable)
/// try database.transaction {
///     try database.run("INSERT INTO notes(text) VALUES (?1)", ["hello"])
/// }
/// let texts = try database.query("SELECT text FROM notes") { $0.text(0) }
/// ```
package final class SQLiteDatabase: @unchecked Sendable {
    /// How a connection is set up.
    package struct Options: Sendable {
        /// `PRAGMA journal_mode=WAL`: readers never block the writer and a commit appends to the log.
        package var writeAheadLog = true
        /// `PRAGMA synchronous`: `FULL` syncs the log on every commit (a committed transaction survives
        /// power loss); `NORMAL` syncs only at checkpoints (survives a crash of the process, but the
        /// last commits may be lost on power loss; the database stays consistent either way).
        package var synchronousFull = true
        /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
        package var busyTimeoutMilliseconds: Int32 = 5000
        /// Opens the file read-only (a reader beside a writer: it sees each committed transaction,
        /// never blocks the writer in WAL mode, and fails any statement that would write). The file
        /// must exist; its journal mode is the writer's. No structural check at open.
        package var readOnly = false
        /// Runs `PRAGMA quick_check` at open, so a damaged file fails there rather than on a later
        /// write. It reads every page: an open costs the file's size (a file that is not a database
        /// fails at open either way).
        package var checksAtOpen = true
        /// Whether a commit that takes the write-ahead log past 1,000 pages copies it back into the
        /// database there and then (SQLite's automatic checkpoint). `false` leaves that to someone
        /// else (the server's store checkpoints on a thread of its own, StoreCheckpointer).
        package var automaticCheckpoint = true
        /// Whether a missing file is created (else opening it fails: a helper connection to a
        /// store that may have been removed meanwhile).
        package var createsMissingFile = true

        package init() {}

        /// WAL, `synchronous=FULL`, a 5 s busy timeout.
        package static let durable = Options()
    }

    private let handle: OpaquePointer
    private var statements: [StatementKey: SQLiteStatement] = [:]
    private var cachedPageSize: Int?
    private var inTransaction = false
    /// Where the log hook writes the log's size in pages after each commit (a connection without
    /// automatic checkpoints only; deallocated after the connection closes).
    private let logPageCount: UnsafeMutablePointer<Int32>?
    /// The path opened (`:memory:` for an in-memory database).
    package let path: String

    /// Whether the main database is open read-only (SQLite falls back to read-only, silently, for a
    /// file the process may not write).
    package var isReadOnly: Bool { chatstream_sqlite3_db_readonly(handle, "main") == 1 }

    /// Opens (creating when missing) the database at `path`; `:memory:` for an in-memory one.
    package init(path: String, options: Options = .durable) throws {
        if let reason = chatstream_sqlite3_load() {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: String(cString: reason), context: "opening \(path)")
        }
        var connection: OpaquePointer?
        let flags =
            (options.readOnly
                ? SQLITE_OPEN_READONLY
                : SQLITE_OPEN_READWRITE | (options.createsMissingFile ? SQLITE_OPEN_CREATE : 0)) | SQLITE_OPEN_NOMUTEX
        let status = chatstream_sqlite3_open_v2(path, &connection, flags, nil)
        guard status == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: chatstream_sqlite3_errmsg($0)) } ?? "out of memory"
            chatstream_sqlite3_close(connection)
            throw SQLiteError(code: status, message: message, context: "opening \(path)")
        }
        handle = connection
        self.path = path
        let counted = !options.readOnly && !options.automaticCheckpoint && options.writeAheadLog && path != ":memory:"
        logPageCount = counted ? UnsafeMutablePointer<Int32>.allocate(capacity: 1) : nil
        logPageCount?.initialize(to: 0)
        chatstream_sqlite3_extended_result_codes(handle, 1)
        chatstream_sqlite3_busy_timeout(handle, options.busyTimeoutMilliseconds)
        if options.readOnly { return }
        // Every stored property is set by now: a throw below releases the object, and `deinit`
        // closes the connection.
        if options.writeAheadLog && path != ":memory:" {
            let mode = try query("PRAGMA journal_mode=WAL") { $0.text(0) }.first
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(code: SQLITE_ERROR, message: "journal mode is \(mode ?? "?")", context: path)
            }
        }
        try execute("PRAGMA synchronous=\(options.synchronousFull ? "FULL" : "NORMAL")")
        try execute("PRAGMA foreign_keys=ON")
        // Temporary files in memory: above all the statement journal a savepoint keeps (every
        // write of the server's group commit runs under one), which SQLite otherwise writes
        // page by page to a file in /var/tmp, a write system call for each page a write changes.
        try execute("PRAGMA temp_store=MEMORY")
        if !options.automaticCheckpoint { try execute("PRAGMA wal_autocheckpoint=0") }
        // After the pragma, which clears any log hook: the hook takes the automatic
        // checkpoint's place and counts the log's pages for whoever checkpoints instead.
        if let logPageCount { chatstream_sqlite3_count_log_pages(handle, logPageCount) }
        // A quick structural check, so a damaged file fails at open rather than on a later write.
        if options.checksAtOpen {
            let check = try query("PRAGMA quick_check") { $0.text(0) }
            guard check == ["ok"] else {
                throw SQLiteError(
                    code: SQLITE_CORRUPT, message: check.prefix(3).joined(separator: "; "),
                    context: "checking \(path)")
            }
        }
    }

    deinit {
        statements.removeAll()
        chatstream_sqlite3_close_v2(handle)
        logPageCount?.deallocate()
    }

    /// The write-ahead log's size in pages after this connection's last commit: counted for a
    /// writer opened without automatic checkpoints (`nil` otherwise), so that whoever checkpoints
    /// in its place knows when the log has grown too long. It falls when a write restarts the log.
    package var logPages: Int? { logPageCount.map { Int($0.pointee) } }

    // MARK: - Statements

    /// Runs one or more statements without parameters or results (schema changes, pragmas).
    package func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = chatstream_sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: chatstream_sqlite3_errstr(status))
            chatstream_sqlite3_free(message)
            throw SQLiteError(code: status, message: text, context: sql)
        }
    }

    /// Runs a statement with parameters `?1`, `?2`, ... and no result rows; returns the rows changed.
    @discardableResult
    package func run(_ sql: String, _ values: [any SQLiteBindable] = []) throws(SQLiteError) -> Int {
        let statement = try prepared(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(chatstream_sqlite3_changes(handle))
    }

    /// Runs a query and maps each row with `row`.
    package func query<T>(
        _ sql: String, _ values: [any SQLiteBindable] = [], _ row: (borrowing SQLiteRow) throws -> T
    ) throws -> [T] {
        let statement = try prepared(sql)
        try statement.bind(values)
        defer { statement.reset() }
        var results: [T] = []
        while try statement.step() {
            results.append(try row(SQLiteRow(handle: statement.handle)))
        }
        return results
    }

    /// The first row of a query mapped with `row`, or nil when there is none.
    package func first<T>(
        _ sql: String, _ values: [any SQLiteBindable] = [], _ row: (borrowing SQLiteRow) throws -> T
    ) throws -> T? {
        let statement = try prepared(sql)
        try statement.bind(values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try row(SQLiteRow(handle: statement.handle))
    }

    /// The database's page size in bytes (`PRAGMA page_size`), read once: it changes only with a
    /// `VACUUM` after a new `PRAGMA page_size`, which the project never runs.
    package var pageSize: Int {
        get throws {
            if let cachedPageSize { return cachedPageSize }
            let size = try first("PRAGMA page_size") { $0.int(0) } ?? 0
            cachedPageSize = size
            return size
        }
    }

    /// The rowid of the last row inserted.
    package var lastInsertRowID: Int { Int(chatstream_sqlite3_last_insert_rowid(handle)) }

    private func prepared(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let key = StatementKey(sql)
        if let statement = statements[key] { return statement }
        var statement: OpaquePointer?
        let status = chatstream_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, "preparing \(sql)") }
        let wrapped = SQLiteStatement(handle: statement, sql: sql, database: self)
        statements[key] = wrapped
        return wrapped
    }

    /// A statement cache key: the SQL text, hashed by its length, its first 16 and its last 32 bytes.
    /// Hashing the whole text (SipHash over every byte) was 4% of the server's store writes, whose
    /// statements run to hundreds of bytes; texts that agree on those bytes only share a bucket, and
    /// the equality check (a pointer comparison for the same literal) tells them apart.
    private struct StatementKey: Hashable {
        let sql: String

        init(_ sql: String) { self.sql = sql }

        func hash(into hasher: inout Hasher) {
            let utf8 = sql.utf8
            hasher.combine(utf8.count)
            let hashed: Void? = utf8.withContiguousStorageIfAvailable { bytes in
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(16))))
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32))))
            }
            if hashed == nil { for byte in utf8.prefix(16) + utf8.suffix(32) { hasher.combine(byte) } }
        }
    }

    func error(_ status: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: status, message: String(cString: chatstream_sqlite3_errmsg(handle)), context: context)
    }

    // MARK: - Transactions and schema

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`, so the write lock is taken up front):
    /// committed when it returns, rolled back when it throws. Calls inside a transaction join it.
    package func transaction<R>(_ body: () throws -> R) throws -> R {
        try transaction(beginning: "BEGIN IMMEDIATE", body)
    }

    /// Runs `count` parts in one transaction (`BEGIN IMMEDIATE`), each under its own savepoint, and
    /// commits once: a part that throws undoes only its own changes (its error is at its index of
    /// the result, nil for a part that succeeded), and one commit (one sync of the log) covers all
    /// the others. Throws, with nothing of any part kept, when the transaction cannot begin or
    /// commit, or when SQLite ended it on its own inside a part (a full disk, an I/O error).
    /// `beforeCommit` runs after the last part, outside every savepoint (what the parts share,
    /// written once); when it throws, nothing of any part is kept.
    /// `transaction(parts: 2) { try insert(row[$0]) }` gives `[nil, nil]`: both rows, one commit.
    package func transaction(
        parts count: Int, _ part: (Int) throws -> Void, beforeCommit: () throws -> Void = {}
    ) throws -> [(any Error)?] {
        precondition(!inTransaction, "a grouped transaction cannot join another")
        _ = try run("BEGIN IMMEDIATE")
        inTransaction = true
        defer { inTransaction = false }
        do {
            var errors: [(any Error)?] = Array(repeating: nil, count: count)
            for index in 0..<count {
                _ = try run("SAVEPOINT part")
                do {
                    try part(index)
                    _ = try run("RELEASE part")
                } catch {
                    // SQLite may have rolled the whole transaction back by itself: then the parts
                    // before this one are gone too, and the group fails as one.
                    guard chatstream_sqlite3_get_autocommit(handle) == 0 else { throw error }
                    _ = try run("ROLLBACK TO part")
                    _ = try run("RELEASE part")
                    errors[index] = error
                }
            }
            try beforeCommit()
            _ = try run("COMMIT")
            return errors
        } catch {
            if chatstream_sqlite3_get_autocommit(handle) == 0 { _ = try? run("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in one read transaction (`BEGIN DEFERRED`): every statement in it sees the same
    /// committed state, and in WAL mode it never waits for a writer. Calls inside a transaction join it.
    package func readTransaction<R>(_ body: () throws -> R) throws -> R {
        try transaction(beginning: "BEGIN DEFERRED", body)
    }

    private func transaction<R>(beginning begin: String, _ body: () throws -> R) throws -> R {
        if inTransaction { return try body() }
        _ = try run(begin)
        inTransaction = true
        defer { inTransaction = false }
        do {
            let result = try body()
            _ = try run("COMMIT")
            return result
        } catch {
            if chatstream_sqlite3_get_autocommit(handle) == 0 { _ = try? run("ROLLBACK") }
            throw error
        }
    }

    /// The schema version kept in the file's header (`PRAGMA user_version`); 0 for a new database.
    package var schemaVersion: Int {
        get throws { try first("PRAGMA user_version") { $0.int(0) } ?? 0 }
    }

    /// Brings the schema from its current version to `migrations.count`, running each missing
    /// migration (index 0 makes version 1) in its own transaction with the version bump.
    /// Throws when the file's version is newer than the migrations this code knows.
    package func migrate(_ migrations: [String]) throws {
        let current = try schemaVersion
        guard current <= migrations.count else {
            throw SQLiteError(
                code: SQLITE_ERROR,
                message: "schema version \(current) is newer than this program's \(migrations.count)",
                context: "opening \(path)")
        }
        for version in current..<migrations.count {
            try transaction {
                try execute(migrations[version])
                try execute("PRAGMA user_version=\(version + 1)")
            }
        }
    }

    /// Whether the file at `path` starts with SQLite's header (false for a missing or other file).
    package static func isDatabaseFile(_ path: String) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 16)
        guard fread(&header, 1, 16, file) == 16 else { return false }
        return header == Array("SQLite format 3\0".utf8)
    }
}
