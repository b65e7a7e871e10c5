// RestartableServer: the server side of a restart for delivery tests. A ChatAPIServer on a data
// file, stopped and replaced by a new one on the same port and the same file, as `chatstream
// serve --data FILE` killed and started again would be (replies cut by the stop are stored as
// interrupted, PROTOCOLS.md section 8).

import ChatStreamServer
import Foundation
import Synchronization

/// A ChatAPIServer that can be restarted on the same port and data file.
///
/// ```swift
/// let server = try RestartableServer()  // a temporary data file, any free port
/// let proxy = try FaultProxy(upstreamPort: server.port)
/// try server.restart()                  // clients through the proxy see their connections end
/// server.stop()
/// ```
package final class RestartableServer: Sendable {
    /// The configuration every incarnation starts with (its port fixed after the first start).
    package let configuration: ChatAPIServer.Configuration
    /// The port every incarnation listens on.
    package let port: UInt16
    private let current: Mutex<ChatAPIServer?>
    private let temporaryDirectory: String?

    /// Starts a server with `configuration`; without a `dataFile` one is made in a temporary
    /// directory (removed by ``stop()``). Port 0 picks a free port, kept for every restart.
    package init(configuration: ChatAPIServer.Configuration = RestartableServer.testConfiguration) throws {
        var configuration = configuration
        if configuration.dataFile == nil {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "chatstream-restartable-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            configuration.dataFile = directory + "/state.sqlite"
            temporaryDirectory = directory
        } else {
            temporaryDirectory = nil
        }
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        configuration.port = server.port
        self.configuration = configuration
        self.port = server.port
        current = Mutex(server)
    }

    /// Loopback, any free port, no pacing, the fault header allowed.
    package static var testConfiguration: ChatAPIServer.Configuration {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.replyDelay = .zero
        configuration.allowsFaultHeader = true
        configuration.http.shutdownGracePeriod = .seconds(3)
        return configuration
    }

    /// The server running now (nil between ``stop()`` and ``start()``).
    package var server: ChatAPIServer? { current.withLock { $0 } }

    /// Stops the running server (its generating replies are stored as interrupted), then starts a
    /// new one on the same port and data file, retrying the bind for up to 60 s.
    package func restart() throws {
        stopServer()
        try start()
    }

    /// Starts a server again after ``stopServer()`` (nothing when one runs).
    package func start() throws {
        guard server == nil else { return }
        let server = ChatAPIServer(configuration: configuration)
        let deadline = Date().addingTimeInterval(60)
        while true {
            do {
                try server.start()
                break
            } catch {
                guard Date() < deadline else { throw error }
                usleep(50_000)
            }
        }
        current.withLock { $0 = server }
    }

    /// Stops the running server and leaves the port closed until ``start()`` (a server that is down).
    package func stopServer() {
        let server = current.withLock { current in
            defer { current = nil }
            return current
        }
        server?.stop()
    }

    /// Stops the server for good and removes a temporary data file.
    package func stop() {
        stopServer()
        if let temporaryDirectory { try? FileManager.default.removeItem(atPath: temporaryDirectory) }
    }
}
