// FileIdentityStore: the identity as two files readable by their owner only (0600, in a 0700
// directory): `device-id` (one line, a UUID) and `signed-in-user` (a small JSON object). The
// device ID is also kept under the Chatbase SDK's UserDefaults key (DeviceIdDefaults).

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
    /// The `UserDefaults` key read first and kept up to date (default the Chatbase SDK's,
    /// ``DeviceIdDefaults/chatbaseSDK``); nil keeps the device ID in the file only.
    public let deviceIdDefaults: DeviceIdDefaults?

    /// Serialises first-use creation inside this process (the file system settles races between
    /// processes: the first file linked into place wins).
    private static let creation = Mutex(())

    /// A store in `directory` (default ``ChatStreamPaths/dataDirectory``).
    ///
    /// The device ID is the one under `deviceIdDefaults` (default the Chatbase SDK's key, so an
    /// app that switches SDKs keeps its device), with the `device-id` file as a copy; when neither
    /// holds one, the first of `legacyDeviceIds` that does, else a new one, kept in both.
    public init(
        directory: URL = ChatStreamPaths.dataDirectory, migratingFrom legacyDeviceIds: [LegacyDeviceId] = [],
        deviceIdDefaults: DeviceIdDefaults? = .chatbaseSDK
    ) {
        self.directory = directory
        self.legacyDeviceIds = legacyDeviceIds
        self.deviceIdDefaults = deviceIdDefaults
    }

    /// The device ID file, `device-id`.
    public var deviceIdFile: URL { ChatStreamPaths.file("device-id", in: directory) }
    /// The signed-in user's file, `signed-in-user`.
    public var signedInUserFile: URL { ChatStreamPaths.file("signed-in-user", in: directory) }

    public func deviceId() throws -> String {
        let file = deviceIdFile
        let stored = { () throws(IdentityStoreError) -> String? in
            try PrivateFiles.read(file).map { bytes throws(IdentityStoreError) in
                try IdentityRecords.deviceId(bytes, location: file.path)
            }
        }
        return try DeviceIdDefaults.deviceId(
            keptIn: deviceIdDefaults, migratingFrom: legacyDeviceIds, stored: stored,
            create: { id in
                try Self.creation.withLock { _ throws(IdentityStoreError) -> String in
                    if let existing = try stored() { return existing }
                    if try PrivateFiles.createExclusively(file, IdentityRecords.deviceIdBytes(id)) { return id }
                    // Another process made it first: its ID is the one.
                    guard let winner = try stored() else {
                        throw IdentityStoreError(.io, file.path, "the file vanished while it was being created")
                    }
                    return winner
                }
            },
            replace: { id in try PrivateFiles.replace(file, IdentityRecords.deviceIdBytes(id)) })
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
