// The device ID: a random UUID v4, lowercase, made once per install and sent as X-Device-Id.

import Foundation
import Synchronization

/// Where a ``ChatClient`` keeps its device ID. Inject ``InMemoryDeviceIdStore`` in tests.
///
/// ```swift
/// let client = ChatClient(agentId: "agent", baseURL: url, deviceIdStore: InMemoryDeviceIdStore())
/// ```
public protocol DeviceIdStore: Sendable {
    /// The stored ID, making and storing a new one the first time.
    func deviceId() throws -> String
}

/// Where ChatStream keeps per-install data (the device ID, the embedded server's data file).
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
            let environment = ProcessInfo.processInfo.environment
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
                return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent(
                    "chatstream", isDirectory: true)
            }
            let home = environment["HOME"] ?? NSHomeDirectory()
            return URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".local/share/chatstream", isDirectory: true)
        #endif
    }

    /// A new random UUID v4, lowercase.
    public static func newDeviceId() -> String { UUID().uuidString.lowercased() }
}

/// Keeps the device ID in a file (default `<dataDirectory>/device-id`), made on first use.
public struct FileDeviceIdStore: DeviceIdStore {
    /// The file holding the ID.
    public let fileURL: URL

    /// A store at `fileURL` (default: `device-id` in ``ChatStreamPaths/dataDirectory``).
    public init(fileURL: URL = ChatStreamPaths.dataDirectory.appendingPathComponent("device-id")) {
        self.fileURL = fileURL
    }

    public func deviceId() throws -> String {
        if let data = try? Data(contentsOf: fileURL),
            let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            UUID(uuidString: text) != nil
        {
            return text.lowercased()
        }
        let id = ChatStreamPaths.newDeviceId()
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((id + "\n").utf8).write(to: fileURL, options: .atomic)
        return id
    }
}

/// Keeps the device ID in memory: a fixed one, or a new random one per store.
public final class InMemoryDeviceIdStore: DeviceIdStore {
    private let id: String

    /// A store holding `id` (default: a new random UUID v4).
    public init(id: String = ChatStreamPaths.newDeviceId()) { self.id = id }

    public func deviceId() throws -> String { id }
}
