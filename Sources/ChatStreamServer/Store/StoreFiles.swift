// StoreFiles: the modes of the files the store creates. The database holds every identity's
// conversations, so it and SQLite's -wal and -shm files are 0600 (owner only) in a directory the
// server creates 0700, whatever the process's umask. SQLite creates -wal and -shm with the mode of
// the database file, so the database is created 0600 before SQLite opens it, and all three are
// set to 0600 once it has (also tightening files an earlier version left 0644).

import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Creates the store's directory and database file with owner-only modes.
enum StoreFiles {
    /// The mode of every file the store creates.
    static let fileMode: Int16 = 0o600
    /// The mode of a directory the store creates.
    static let directoryMode: Int16 = 0o700
    /// The suffixes of the files SQLite keeps beside the database in WAL mode.
    static let companions = ["", "-wal", "-shm"]

    /// Before SQLite opens `path`: creates its missing directory (0700) and the missing database
    /// file itself (empty, 0600), so SQLite never creates one with its default 0644.
    static func prepare(_ path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: NSNumber(value: directoryMode)])
            try FileManager.default.setAttributes(
                [.posixPermissions: NSNumber(value: directoryMode)], ofItemAtPath: directory)
        }
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode_t(fileMode))
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// After SQLite opened `path`: sets the database, -wal and -shm files that exist to 0600.
    static func restrict(_ path: String) throws {
        for suffix in companions where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.setAttributes(
                [.posixPermissions: NSNumber(value: fileMode)], ofItemAtPath: path + suffix)
        }
    }
}
