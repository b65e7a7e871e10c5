// SQLiteStatement: a prepared statement, bound, stepped and read row by row.

internal import CSQLite

/// A prepared statement of a ``SQLiteDatabase``; the database caches and resets them.
package final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    /// The statement's highest parameter index (`?N`), read once.
    private let parameterCount: Int
    private unowned let database: SQLiteDatabase

    init(handle: OpaquePointer, sql: String, database: SQLiteDatabase) {
        self.handle = handle
        self.sql = sql
        self.parameterCount = Int(chatstream_sqlite3_bind_parameter_count(handle))
        self.database = database
    }

    deinit { chatstream_sqlite3_finalize(handle) }

    /// Binds `values` to the parameters `?1`, `?2`, ... of a statement reset after its last run
    /// (the database resets each one when done with it, and ``step()`` on an error). Parameters
    /// past `values` are cleared to NULL; when `values` covers them all, every one is rebound
    /// anyway, so the clearing (a call into SQLite per statement run) is skipped.
    func bind(_ values: [any SQLiteBindable]) throws(SQLiteError) {
        if values.count < parameterCount { chatstream_sqlite3_clear_bindings(handle) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value.sqliteValue {
            case .null: status = chatstream_sqlite3_bind_null(handle, index)
            case .integer(let number): status = chatstream_sqlite3_bind_int64(handle, index, number)
            case .real(let number): status = chatstream_sqlite3_bind_double(handle, index, number)
            case .text(let text):
                let length = Int32(text.utf8.count)
                status = text.withCString { chatstream_sqlite3_bind_transient_text(handle, index, $0, length) }
            case .blob(let bytes):
                status =
                    bytes.isEmpty
                    ? chatstream_sqlite3_bind_zeroblob(handle, index, 0)
                    : bytes.withUnsafeBytes {
                        chatstream_sqlite3_bind_transient_blob(handle, index, $0.baseAddress, Int32($0.count))
                    }
            }
            guard status == SQLITE_OK else { throw database.error(status, "binding parameter \(index) of \(sql)") }
        }
    }

    /// Runs one step: true when a row is ready to read, false when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let status = chatstream_sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(status, sql)
            chatstream_sqlite3_reset(handle)
            throw error
        }
    }

    /// Finishes the run (releases read locks held by an unfinished query).
    func reset() { chatstream_sqlite3_reset(handle) }
}

/// One result row, valid until the statement steps again.
package struct SQLiteRow: ~Copyable {
    let handle: OpaquePointer

    /// Whether column `index` (from 0) is NULL.
    package func isNull(_ index: Int32) -> Bool { chatstream_sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` as an integer (0 for NULL).
    package func int(_ index: Int32) -> Int { Int(chatstream_sqlite3_column_int64(handle, index)) }

    /// Column `index` as a real number (0 for NULL; an integer column converts).
    package func double(_ index: Int32) -> Double { chatstream_sqlite3_column_double(handle, index) }

    /// Column `index` as text (empty for NULL).
    package func text(_ index: Int32) -> String {
        guard let bytes = chatstream_sqlite3_column_text(handle, index) else { return "" }
        let count = Int(chatstream_sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` as text, nil for NULL.
    package func optionalText(_ index: Int32) -> String? { isNull(index) ? nil : text(index) }

    /// Column `index` as an integer, nil for NULL.
    package func optionalInt(_ index: Int32) -> Int? { isNull(index) ? nil : int(index) }

    /// Column `index` as bytes (empty for NULL).
    package func blob(_ index: Int32) -> [UInt8] {
        let count = Int(chatstream_sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = chatstream_sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
