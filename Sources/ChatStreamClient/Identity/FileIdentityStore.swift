// FileIdentityStore: the identity as two files readable by their owner only (0600, in a 0700
// directory): `device-id` (one line, a UUID) and `signed-in-user` (a small JSON object).

import Foundation
import Synchronization

/// Keeps the identity in files only their owner can read, in ``ChatStreamPaths/dataDirectory``
/// by default (`$XDG_DATA_HOME/chatstream` on Linux). The default store on Linux.
///
/// A file that is not what the store wrote is never overwritten: reading it throws an
/// ``IdentityStoreError`` of kind ``IdentityStoreError/Kind/corrupt`` naming the file and what is
/// wrong. ``setSignedInUser(_:)`` with nil (what `logout()` does) removes the user's file, corrupt
/// or not.
///
/// ```swift
/// let store = FileIdentityStore(directory: URL(fileURLWithPath: "/var/lib/myapp/chat"))
/// print(try store.deviceId())
/// ```
public struct FileIdentityStore: IdentityStore {
    /// The directory holding the files (made 0700 on first write).
    public let directory: URL
    /// Where an earlier SDK may have kept a device ID, read when there is no `device-id` file yet.
    public let legacyDeviceIds: [LegacyDeviceId]

    /// Serialises first-use creation inside this process (the file system settles races between
    /// processes: the first file linked into place wins).
    private static let creation = Mutex(())

    /// A store in `directory` (default ``ChatStreamPaths/dataDirectory``), taking a device ID from
    /// the first of `legacyDeviceIds` that holds one when it has none.
    public init(directory: URL = ChatStreamPaths.dataDirectory, migratingFrom legacyDeviceIds: [LegacyDeviceId] = []) {
        self.directory = directory
        self.legacyDeviceIds = legacyDeviceIds
    }

    /// The device ID file, `device-id`.
    public var deviceIdFile: URL { directory.appendingPathComponent("device-id") }
    /// The signed-in user's file, `signed-in-user`.
    public var signedInUserFile: URL { directory.appendingPathComponent("signed-in-user") }

    public func deviceId() throws -> String {
        let file = deviceIdFile
        if let bytes = try PrivateFiles.read(file) {
            return try IdentityRecords.deviceId(bytes, location: file.path)
        }
        return try Self.creation.withLock { _ throws(IdentityStoreError) -> String in
            if let bytes = try PrivateFiles.read(file) {
                return try IdentityRecords.deviceId(bytes, location: file.path)
            }
            let id = LegacyDeviceId.firstValid(legacyDeviceIds) ?? ChatStreamPaths.newDeviceId()
            if try PrivateFiles.createExclusively(file, IdentityRecords.deviceIdBytes(id)) { return id }
            // Another process made it first: its ID is the one.
            guard let bytes = try PrivateFiles.read(file) else {
                throw IdentityStoreError(.io, file.path, "the file vanished while it was being created")
            }
            return try IdentityRecords.deviceId(bytes, location: file.path)
        }
    }

    public func signedInUser() throws -> SignedInUser? {
        let file = signedInUserFile
        return try PrivateFiles.read(file).map { bytes throws(IdentityStoreError) in
            try IdentityRecords.user(bytes, location: file.path)
        }
    }

    public func setSignedInUser(_ user: SignedInUser?) throws {
        if let user {
            try PrivateFiles.replace(signedInUserFile, IdentityRecords.userBytes(user))
        } else {
            try PrivateFiles.remove(signedInUserFile)
        }
    }
}
