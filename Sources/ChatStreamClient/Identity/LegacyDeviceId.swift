// LegacyDeviceId: a place an earlier SDK (or an earlier ChatStream) kept the device ID. A store
// with no device ID of its own takes the first one found there, so an app that switches keeps
// its anonymous conversations.

import Foundation

/// Where a device ID may already live from an earlier SDK; read once, when a store has none yet.
///
/// ```swift
/// let store = FileIdentityStore(migratingFrom: [.userDefaults(key: "com.example.deviceId")])
/// ```
public struct LegacyDeviceId: Sendable, CustomStringConvertible {
    /// Where it reads, for people.
    public let description: String
    let read: @Sendable () -> String?

    /// A source named `description` that `read` answers (nil: nothing there).
    public init(_ description: String, read: @escaping @Sendable () -> String?) {
        self.description = description
        self.read = read
    }

    /// The Chatbase iOS SDK's place: `UserDefaults.standard`, key `com.chatbase.sdk.deviceId`.
    public static let chatbaseSDK = userDefaults(key: "com.chatbase.sdk.deviceId")

    /// A string in `UserDefaults` (the standard defaults, or the suite named `suiteName`).
    public static func userDefaults(key: String, suiteName: String? = nil) -> LegacyDeviceId {
        LegacyDeviceId("UserDefaults \(suiteName ?? "standard") key \(key)") {
            let defaults = suiteName.map { UserDefaults(suiteName: $0) } ?? UserDefaults.standard
            return defaults?.string(forKey: key)
        }
    }

    /// A file holding the ID as text (an earlier ChatStream's `device-id` file).
    public static func file(_ url: URL) -> LegacyDeviceId {
        LegacyDeviceId("file \(url.path)") {
            (try? Data(contentsOf: url)).flatMap { String(data: $0, encoding: .utf8) }
        }
    }

    /// The value, when it is a usable device ID (a UUID, kept exactly as stored).
    func validId() -> String? {
        guard let text = read()?.trimmingCharacters(in: .whitespacesAndNewlines), UUID(uuidString: text) != nil
        else { return nil }
        return text
    }

    /// The first usable ID among `sources`, reading each at most once, in order.
    static func firstValid(_ sources: [LegacyDeviceId]) -> String? {
        for source in sources {
            if let id = source.validId() { return id }
        }
        return nil
    }
}
