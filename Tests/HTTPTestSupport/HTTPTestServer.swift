// HTTPTestServer: runs the package's HTTPServer on a free loopback port, for the server's
// raw-socket suites and the client's transport suites alike.

import ChatStreamServer
import Foundation
import TestSupport

/// Starting and stopping servers in the HTTP and transport suites.
package enum HTTPTestServer {
    /// Starts a server on 127.0.0.1 port 0, runs `body` on ``NetworkTestExecutor`` (blocking socket
    /// reads must not hold the cooperative pool's few threads), stops the server.
    package static func with<T>(
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
    package static var configuration: HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.shutdownGracePeriod = .seconds(3)
        return configuration
    }

    /// The server's URL for `path`.
    package static func url(_ server: HTTPServer, _ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }
}
