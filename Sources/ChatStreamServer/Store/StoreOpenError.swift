// StoreOpenError: why the server refuses to start on its database file. Starting anyway would
// answer 500 to every write (a file it cannot write) or serve no data without a word (an emptied
// file, or a damaged one SQLite would read past); `recover` (`serve --recover`) starts on an
// emptied file as a new store, and moves a damaged one aside first (StoreDamage).

/// Why a database file cannot be used; the description says what to do.
enum StoreOpenError: Error, CustomStringConvertible, Equatable {
    /// The file (or its directory) cannot be written by this process.
    case notWritable(String)
    /// The file exists but is empty: the data it held is gone.
    case emptyFile(String)
    /// The file or its write-ahead log is damaged (the reason says where).
    case damaged(String, reason: String)

    var description: String {
        switch self {
        case .notWritable(let path):
            "the database \(path) cannot be written by this process (check its owner, mode and file system)"
        case .emptyFile(let path):
            "the database \(path) is an empty file, so its data is gone; restore a backup, or start "
                + "with --recover to begin with an empty store"
        case .damaged(let path, let reason):
            "the database \(path) is damaged: \(reason); restore a backup, or start with --recover to move "
                + "the damaged files aside and begin with an empty store"
        }
    }
}
