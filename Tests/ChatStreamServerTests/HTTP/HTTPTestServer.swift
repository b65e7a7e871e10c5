// HTTPTestServer: runs an HTTPServer on a free loopback port for the raw-socket suites.

import TestSupport

@testable import ChatStreamServer

/// Starting and stopping servers in the HTTP suites.
enum HTTPTestServer {
    /// Starts a server on 127.0.0.1 port 0, runs `body` on ``NetworkTestExecutor`` (its blocking socket
    /// reads must not hold the cooperative pool's few threads), stops the server.
    static func with<T>(
        configuration: HTTPServerConfiguration = HTTPTestServer.configuration,
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
}
