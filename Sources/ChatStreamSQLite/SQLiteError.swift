// SQLiteError: a failed SQLite call, with SQLite's result code, its message and the SQL it ran.

/// A SQLite call that failed: the result code, SQLite's message and what was being done.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (for example 5 `SQLITE_BUSY`, 19 `SQLITE_CONSTRAINT`).
    package var code: Int32
    /// SQLite's message for the failure.
    package var message: String
    /// The statement or operation that failed.
    package var context: String

    package init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// Whether the failure is a constraint violation (a unique key already taken, for example).
    package var isConstraint: Bool { code & 0xff == 19 }

    package var description: String { "SQLite error \(code) (\(message)) in \(context)" }
}
