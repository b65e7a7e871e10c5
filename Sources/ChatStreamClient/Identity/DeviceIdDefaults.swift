// DeviceIdDefaults: the `UserDefaults` key where the Chatbase SDK keeps the device ID
// (`com.chatbase.sdk.deviceId`, a `UUID().uuidString`). ChatStream's identity stores read it first
// and keep it up to date on every platform (Foundation's UserDefaults exists on Linux too), with
// their own copy (a file, a Keychain item) beside it: an app that switches from the SDK, or back
// to it, keeps its device and so its anonymous conversations, and a copy that outlives the
// defaults (the Keychain survives a reinstall on iOS) puts the ID back.

import Foundation

/// A `UserDefaults` key holding the device ID, read first and kept up to date by
/// ``FileIdentityStore`` and `KeychainIdentityStore`.
///
/// ```swift
/// let store = FileIdentityStore(deviceIdDefaults: DeviceIdDefaults(suiteName: "group.example.app"))
/// ```
public struct DeviceIdDefaults: Sendable, Hashable, CustomStringConvertible {
    /// The defaults suite (nil: `UserDefaults.standard`).
    public let suiteName: String?
    /// The key.
    public let key: String

    /// The key `key` of the suite `suiteName` (default: the standard defaults; default key the
    /// Chatbase SDK's).
    public init(suiteName: String? = nil, key: String = "com.chatbase.sdk.deviceId") {
        self.suiteName = suiteName
        self.key = key
    }

    /// The Chatbase iOS SDK's place: `UserDefaults.standard`, key `com.chatbase.sdk.deviceId`.
    public static let chatbaseSDK = DeviceIdDefaults()

    /// `UserDefaults <suite> key <key>`.
    public var description: String { "UserDefaults \(suiteName ?? "standard") key \(key)" }

    private var defaults: UserDefaults? {
        guard let suiteName else { return UserDefaults.standard }
        return UserDefaults(suiteName: suiteName)
    }

    /// The ID under the key when it is a usable one (a UUID, kept exactly as stored).
    func validId() -> String? {
        guard let text = defaults?.string(forKey: key)?.trimmingCharacters(in: .whitespacesAndNewlines),
            UUID(uuidString: text) != nil
        else { return nil }
        return text
    }

    /// Stores `id` under the key (when it holds something else).
    func keep(_ id: String) {
        guard let defaults, defaults.string(forKey: key) != id else { return }
        defaults.set(id, forKey: key)
    }

    /// The device ID of a store that keeps it in `defaults` (nil: in its own copy only):
    ///
    /// - the ID under the key, when it is a UUID: the store's copy is made, or replaced when it
    ///   differs (a damaged copy is left untouched, as the stores never overwrite what they cannot
    ///   read; the key is the ID);
    /// - else the store's copy (`stored`), written under the key;
    /// - else the first usable ID of `legacy`, or a new one (`UUID().uuidString` as the SDK makes
    ///   it when a key is kept, ``ChatStreamPaths/newDeviceId()`` otherwise), given to `create`,
    ///   which keeps the first one stored (several clients may ask at once) and returns it; it is
    ///   written under the key.
    static func deviceId(
        keptIn defaults: DeviceIdDefaults?, migratingFrom legacy: [LegacyDeviceId],
        stored: () throws -> String?, create: (String) throws -> String, replace: (String) throws -> Void
    ) throws -> String {
        if let defaults, let shared = defaults.validId() {
            switch Result(catching: { try stored() }) {
            case .success(let copy?) where copy != shared: try? replace(shared)
            case .success(nil): _ = try? create(shared)
            default: break  // the same ID, or a damaged copy (left untouched)
            }
            return shared
        }
        if let copy = try stored() {
            defaults?.keep(copy)
            return copy
        }
        let fresh =
            LegacyDeviceId.firstValid(legacy) ?? (defaults == nil ? ChatStreamPaths.newDeviceId() : UUID().uuidString)
        let id = try create(fresh)
        defaults?.keep(id)
        return id
    }
}
