import Dispatch
import Foundation
import Synchronization
import TestSupport

@testable import ChatStreamServer

/// Test helpers shared by the transport suites.
enum TestHelpers {
    /// Starts a server on 127.0.0.1 port 0, runs `body` on ``NetworkTestExecutor``, stops the server.
    static func withServer<T>(
        configuration: HTTPServerConfiguration = TestHelpers.configuration,
        handler: @escaping HTTPServer.Handler,
        _ body: (HTTPServer) async throws -> T
    ) async throws -> T {
        let server = HTTPServer(configuration: configuration, handler: handler)
        try server.start()
        defer { server.stop() }
        return try await withTaskExecutorPreference(NetworkTestExecutor.shared) { try await body(server) }
    }

    /// Short grace period so a failing test does not hang in `stop()`.
    static var configuration: HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.shutdownGracePeriod = .seconds(3)
        return configuration
    }

    /// Polls `condition` until it holds or `timeout` passes (see TestSupport's `eventually`).
    static func eventually(timeout: Duration = .seconds(60), _ condition: @Sendable () -> Bool) async -> Bool {
        await TestSupport.eventually(timeout: timeout, condition)
    }

    /// The server's base URL.
    static func url(_ server: HTTPServer, _ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }
}
