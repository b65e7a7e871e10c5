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

/// Runs the network tests' async code on Dispatch's threads rather than on the cooperative pool.
///
/// Many of these tests go in lock step with a server handler that waits for the client to have
/// read a chunk, under an idle timeout. Swift Testing runs synchronous tests on the cooperative
/// pool, which has one thread per core; a few long synchronous tests running at once (the corpus
/// suites decode every stream at every chunking) would hold all of them, the client would read
/// nothing, and the timeout would fire though nothing is wrong with the transport.
final class NetworkTestExecutor: TaskExecutor {
    static let shared = NetworkTestExecutor()

    private let queue = DispatchQueue(label: "chatstream.tests.network", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
