// Identity storage: the device ID (made once per install) and the signed-in user's token, both kept
// across launches. The client reads them through the IdentityStore protocol; FileIdentityStore
// (Linux, and any platform given a directory), KeychainIdentityStore (Apple platforms, the default
// there) and InMemoryIdentityStore (tests, previews) implement it.

import Foundation
import Synchronization

/// Where a client keeps its identity: the device ID sent as `X-Device-Id`, and the signed-in
/// user's token sent as `X-User-Token`, so a user stays signed in after the app restarts.
///
/// The default is `KeychainIdentityStore` on Apple platforms and ``FileIdentityStore`` elsewhere
/// (``ChatStreamPaths/defaultIdentityStore``). Inject ``InMemoryIdentityStore`` in tests.
///
/// ```swift
/// let store = InMemoryIdentityStore()
/// let id = try store.deviceId()
/// try store.setSignedInUser(SignedInUser(token: "header.payload.signature"))
/// ```
public protocol IdentityStore: Sendable {
    /// The stored device ID, making and storing a new one the first time (once, even when several
    /// clients ask at the same moment).
    func deviceId() throws -> String

    /// The signed-in user, or nil when the device is anonymous.
    func signedInUser() throws -> SignedInUser?

    /// Stores `user` as the signed-in user, or removes the stored one when `user` is nil.
    func setSignedInUser(_ user: SignedInUser?) throws
}

/// A signed-in user as an ``IdentityStore`` keeps it.
public struct SignedInUser: Sendable, Hashable {
    /// The JWT verified by the server, sent as `X-User-Token`.
    public var token: String
    /// The user's ID, once the server has told it (nil until then).
    public var userId: String?

    /// A signed-in user with `token` (and `userId` when known).
    public init(token: String, userId: String? = nil) {
        self.token = token
        self.userId = userId
    }
}

/// Where ChatStream keeps per-install data (the identity files, the embedded server's data file).
public enum ChatStreamPaths {
    /// Linux: `$XDG_DATA_HOME/chatstream` or `~/.local/share/chatstream`;
    /// Apple platforms: `Application Support/chatstream`.
    public static var dataDirectory: URL {
        #if canImport(Darwin)
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent("Library/Application Support")
            return base.appendingPathComponent("chatstream", isDirectory: true)
        #else
            // The two variables read with getenv and the path joined as a string, not the process
            // environment as a dictionary (0.72 million instructions) and URL appending: 0.9-1.4
            // million fewer at every command's start. (The first `path` of a URL still builds
            // Foundation's percent-decoding set, 0.37 million.)
            if let xdg = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") {
                return URL(fileURLWithPath: joined(xdg, "chatstream"), isDirectory: true)
            }
            let home = getenv("HOME").map { String(cString: $0) } ?? NSHomeDirectory()
            return URL(fileURLWithPath: joined(home, ".local/share/chatstream"), isDirectory: true)
        #endif
    }

    /// The file `name` in `directory` (a file URL).
    static func file(_ name: String, in directory: URL) -> URL {
        #if canImport(Darwin)
            directory.appendingPathComponent(name)
        #else
            URL(fileURLWithPath: joined(directory.path, name))
        #endif
    }

    /// `path` and `name` with one slash between them.
    static func joined(_ path: String, _ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    /// A new random UUID v4, lowercase.
    public static func newDeviceId() -> String { UUID().uuidString.lowercased() }

    /// The store a client uses unless told otherwise: the Keychain on Apple platforms (taking over
    /// the token of the Chatbase iOS SDK), a ``FileIdentityStore`` in ``dataDirectory`` elsewhere;
    /// both keep the device ID under the SDK's `UserDefaults` key (``DeviceIdDefaults/chatbaseSDK``).
    public static var defaultIdentityStore: any IdentityStore {
        #if canImport(Security)
            KeychainIdentityStore()
        #else
            FileIdentityStore()
        #endif
    }
}

/// Keeps the identity in memory: nothing survives the process. For tests and previews.
public final class InMemoryIdentityStore: IdentityStore {
    private let state: Mutex<(deviceId: String, user: SignedInUser?)>

    /// A store holding `deviceId` (default: a new random UUID v4) and `user` (default: anonymous).
    public init(deviceId: String = ChatStreamPaths.newDeviceId(), user: SignedInUser? = nil) {
        state = Mutex((deviceId, user))
    }

    public func deviceId() throws -> String { state.withLock { $0.deviceId } }

    public func signedInUser() throws -> SignedInUser? { state.withLock { $0.user } }

    public func setSignedInUser(_ user: SignedInUser?) throws { state.withLock { $0.user = user } }
}
