// KeychainIdentityStore: the identity as two generic-password items of the Keychain (Apple
// platforms). The device ID is the Chatbase iOS SDK's (UserDefaults key `com.chatbase.sdk.deviceId`,
// read first and kept up to date: DeviceIdDefaults) with a Keychain copy that survives a reinstall;
// with neither, an earlier ChatStream's file. With no signed-in user of its own it takes the SDK's
// saved token (service `com.chatbase.sdk`, account `userToken`), so an app that switches SDKs
// keeps its conversations and its signed-in user.

#if canImport(Security)
    import Foundation
    import Security
    import Synchronization

    /// Keeps the identity in the Keychain: the default store on Apple platforms.
    ///
    /// Items are generic passwords of ``service``, readable after the first unlock (so background
    /// work can send). A stored value that is not what the store wrote throws an
    /// ``IdentityStoreError`` and is left untouched.
    ///
    /// ```swift
    /// let client = ChatbaseClient(agentId: "my-agent", identityStore: KeychainIdentityStore())
    /// ```
    public struct KeychainIdentityStore: IdentityStore {
        /// The Keychain service of the items.
        public let service: String
        /// Where an earlier SDK may have kept a device ID, read when the Keychain has none yet.
        public let legacyDeviceIds: [LegacyDeviceId]
        /// Whether the Chatbase iOS SDK's saved token is taken over (and removed on sign-out).
        public let migratesChatbaseToken: Bool
        /// The `UserDefaults` key read first and kept up to date (default the Chatbase SDK's,
        /// ``DeviceIdDefaults/chatbaseSDK``); nil keeps the device ID in the Keychain only.
        public let deviceIdDefaults: DeviceIdDefaults?

        static let deviceIdAccount = "device-id"
        static let userAccount = "signed-in-user"
        static let chatbaseService = "com.chatbase.sdk"
        static let chatbaseTokenAccount = "userToken"

        private static let creation = Mutex(())

        /// A store in `service`, migrating from the Chatbase iOS SDK and an earlier ChatStream by
        /// default. The device ID is the one under `deviceIdDefaults` (the SDK's key by default),
        /// with the Keychain item as a copy that survives a reinstall and puts the key back.
        public init(
            service: String = "chatstream.identity",
            migratingFrom legacyDeviceIds: [LegacyDeviceId] = [
                .chatbaseSDK, .file(ChatStreamPaths.dataDirectory.appendingPathComponent("device-id")),
            ],
            migratesChatbaseToken: Bool = true, deviceIdDefaults: DeviceIdDefaults? = .chatbaseSDK
        ) {
            self.service = service
            self.legacyDeviceIds = legacyDeviceIds
            self.migratesChatbaseToken = migratesChatbaseToken
            self.deviceIdDefaults = deviceIdDefaults
        }

        public func deviceId() throws -> String {
            let service = service
            let location = Self.location(service, Self.deviceIdAccount)
            let stored = { () throws(IdentityStoreError) -> String? in
                try Self.read(service, Self.deviceIdAccount).map { bytes throws(IdentityStoreError) in
                    try IdentityRecords.deviceId(bytes, location: location)
                }
            }
            return try DeviceIdDefaults.deviceId(
                keptIn: deviceIdDefaults, migratingFrom: legacyDeviceIds, stored: stored,
                create: { id in
                    try Self.creation.withLock { _ throws(IdentityStoreError) -> String in
                        if let existing = try stored() { return existing }
                        if try Self.add(service, Self.deviceIdAccount, IdentityRecords.deviceIdBytes(id)) { return id }
                        guard let winner = try stored() else {
                            throw IdentityStoreError(
                                .keychain, location, "the item vanished while it was being created")
                        }
                        return winner
                    }
                },
                replace: { id in try Self.update(service, Self.deviceIdAccount, IdentityRecords.deviceIdBytes(id)) })
        }

        public func signedInUser() throws -> SignedInUser? {
            if let bytes = try Self.read(service, Self.userAccount) {
                return try IdentityRecords.user(bytes, location: Self.location(service, Self.userAccount))
            }
            guard migratesChatbaseToken,
                let bytes = try Self.read(Self.chatbaseService, Self.chatbaseTokenAccount),
                let token = String(bytes: bytes, encoding: .utf8), !token.isEmpty
            else { return nil }
            let user = SignedInUser(token: token)
            try setSignedInUser(user)
            return user
        }

        public func setSignedInUser(_ user: SignedInUser?) throws {
            guard let user else {
                try Self.delete(service, Self.userAccount)
                if migratesChatbaseToken { try Self.delete(Self.chatbaseService, Self.chatbaseTokenAccount) }
                return
            }
            let bytes = IdentityRecords.userBytes(user)
            if try !Self.add(service, Self.userAccount, bytes) {
                try Self.update(service, Self.userAccount, bytes)
            }
        }

        // MARK: Keychain calls

        static func location(_ service: String, _ account: String) -> String { "keychain:\(service)/\(account)" }

        private static func query(_ service: String, _ account: String) -> [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
        }

        private static func failure(_ status: OSStatus, _ service: String, _ account: String, _ what: String)
            -> IdentityStoreError
        {
            let reason = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
            return IdentityStoreError(
                .keychain, location(service, account), "cannot \(what): \(reason)", status: status)
        }

        private static func read(_ service: String, _ account: String) throws(IdentityStoreError) -> [UInt8]? {
            var search = query(service, account)
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &result)
            switch status {
            case errSecSuccess:
                guard let data = result as? Data else {
                    throw IdentityStoreError(.corrupt, location(service, account), "the item holds no data")
                }
                return [UInt8](data)
            case errSecItemNotFound:
                return nil
            default:
                throw failure(status, service, account, "read the item")
            }
        }

        /// Adds the item; false when it already exists.
        private static func add(_ service: String, _ account: String, _ bytes: [UInt8]) throws(IdentityStoreError)
            -> Bool
        {
            var item = query(service, account)
            item[kSecValueData as String] = Data(bytes)
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            let status = SecItemAdd(item as CFDictionary, nil)
            switch status {
            case errSecSuccess: return true
            case errSecDuplicateItem: return false
            default: throw failure(status, service, account, "add the item")
            }
        }

        private static func update(_ service: String, _ account: String, _ bytes: [UInt8]) throws(IdentityStoreError) {
            let change: [String: Any] = [kSecValueData as String: Data(bytes)]
            let status = SecItemUpdate(query(service, account) as CFDictionary, change as CFDictionary)
            guard status == errSecSuccess else { throw failure(status, service, account, "update the item") }
        }

        private static func delete(_ service: String, _ account: String) throws(IdentityStoreError) {
            let status = SecItemDelete(query(service, account) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw failure(status, service, account, "delete the item")
            }
        }
    }
#endif
