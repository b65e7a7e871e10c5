// SQLiteValue: one value bound to a statement's parameter or read from a result column.

/// A SQLite value: NULL, an integer, a real, text or a blob.
package enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift value that binds as a SQLite parameter.
package protocol SQLiteBindable {
    /// The value to bind.
    var sqliteValue: SQLiteValue { get }
}

extension Int: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Int64: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .integer(self) }
}

extension Bool: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension Double: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .real(self) }
}

extension String: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .text(self) }
}

extension SQLiteValue: SQLiteBindable {
    package var sqliteValue: SQLiteValue { self }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
