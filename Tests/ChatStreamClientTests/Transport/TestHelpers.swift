import ChatStreamServer
import Dispatch
import Foundation
import Synchronization

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

    /// Polls `condition` until it holds or `timeout` passes; the result is whether it held.
    static func eventually(
        timeout: Duration = .seconds(60), _ condition: @Sendable () -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// The server's base URL.
    static func url(_ server: HTTPServer, _ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }
}

/// A value shared between a handler thread and the test.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
    func update(_ change: (inout Value) -> Void) { storage.withLock { change(&$0) } }
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
