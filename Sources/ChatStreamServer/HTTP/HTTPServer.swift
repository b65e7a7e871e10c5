// HTTPServer: a small HTTP/1.1 server on blocking POSIX sockets, one thread per connection.
//
// An accept thread polls the listening socket and a wake pipe (so `stop()` can end it without racing
// on a closed descriptor). Each accepted connection gets a Foundation `Thread` that parses requests
// and calls the handler synchronously; handlers may block or sleep to pace a stream without touching
// Swift concurrency's cooperative pool. Open connections are registered under a mutex; `stop()`
// shuts each registered socket down (never closes it: only its own thread closes a descriptor, after
// unregistering, so a descriptor number is never reused under someone's feet), which wakes blocked
// reads and makes writes fail, then waits for the threads to finish.

import Dispatch
import Foundation
import Glibc
import Synchronization

/// A small HTTP/1.1 server for the ChatStream API, the CLI's `serve`, and tests.
///
/// ```swift
/// let server = HTTPServer { request, response in
///     try response.respond(status: 200, headers: [("Content-Type", "text/plain")], body: Array("hi\n".utf8))
/// }
/// try server.start()
/// print("listening on http://127.0.0.1:\(server.port)/")
/// // ...
/// server.stop()
/// ```
///
/// The handler runs on the connection's own thread, once per request, with the whole body read.
/// If it throws before responding the client gets `500`; if it throws mid-stream the connection is
/// dropped so the client sees a truncated response rather than a clean end.
public final class HTTPServer: Sendable {
    /// The handler's type: called on the connection's thread for each request.
    public typealias Handler = @Sendable (HTTPServerRequest, HTTPServerResponseWriter) throws -> Void

    private enum Phase {
        case idle
        case running
        case stopped
    }

    private struct State {
        var phase = Phase.idle
        var port: UInt16 = 0
        var wakeWriteFD: Int32 = -1
        var connections: [Int: Socket] = [:]
        var nextConnectionID = 0
    }

    /// The host the server listens on (`127.0.0.1`, `::1`, `0.0.0.0`, `localhost`, ...).
    public let host: String
    private let requestedPort: UInt16
    /// The limits and timeouts in force.
    public let configuration: HTTPServerConfiguration
    private let handler: Handler
    private let state = Mutex(State())
    private let connectionThreads = DispatchGroup()
    private let acceptThreadDone = DispatchSemaphore(value: 0)

    /// A server for `host:port` (port 0: the system picks a free one, read it from ``port`` after
    /// ``start()``). Nothing happens until ``start()``.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, configuration: HTTPServerConfiguration = .init(),
        handler: @escaping Handler
    ) {
        self.host = host
        self.requestedPort = port
        self.configuration = configuration
        self.handler = handler
    }

    /// The port the server listens on (the actual one when created with port 0); 0 before ``start()``.
    public var port: UInt16 { state.withLock { $0.port } }

    /// The number of connections open right now.
    public var openConnections: Int { state.withLock { $0.connections.count } }

    /// Binds, listens and starts accepting connections on a background thread.
    ///
    /// - Throws: ``HTTPServerError/alreadyStarted`` when called twice, ``HTTPServerError/addressResolution``
    ///   or ``HTTPServerError/socket`` when the address cannot be bound.
    public func start() throws {
        try state.withLock { state throws(HTTPServerError) in
            guard state.phase == .idle else { throw HTTPServerError.alreadyStarted }
            let listener = try Socket.listen(host: host, port: requestedPort)
            var pipeFDs: [Int32] = [-1, -1]
            guard pipe(&pipeFDs) == 0 else {
                listener.close()
                throw HTTPServerError.socket.with(message: Socket.errnoText("pipe"))
            }
            for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            state.phase = .running
            state.port = listener.localPort
            state.wakeWriteFD = pipeFDs[1]
            let wakeReadFD = pipeFDs[0]
            let thread = Thread { [self] in
                acceptLoop(listener: listener, wakeReadFD: wakeReadFD)
            }
            thread.name = "HTTPServer accept :\(state.port)"
            thread.start()
        }
    }

    /// Stops accepting, shuts every open connection down (handlers' next writes fail) and waits up to
    /// ``HTTPServerConfiguration/shutdownGracePeriod`` for their threads to finish. Idempotent.
    /// Do not call it from a handler (it would wait for that handler's own thread).
    public func stop() {
        let wakeFD: Int32? = state.withLock { state in
            guard state.phase == .running else {
                state.phase = .stopped
                return nil
            }
            state.phase = .stopped
            return state.wakeWriteFD
        }
        guard let wakeFD else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(wakeFD, &byte, 1)
        acceptThreadDone.wait()
        Glibc.close(wakeFD)
        state.withLock { state in
            for socket in state.connections.values { socket.shutdown() }
        }
        let grace = configuration.shutdownGracePeriod.pollMilliseconds
        _ = connectionThreads.wait(timeout: .now() + .milliseconds(Int(grace)))
    }

    // MARK: - Threads

    private func acceptLoop(listener: Socket, wakeReadFD: Int32) {
        defer {
            listener.close()
            Glibc.close(wakeReadFD)
            acceptThreadDone.signal()
        }
        var fds = [
            pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            guard let (socket, address) = listener.accept() else {
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { usleep(10_000) }
                continue
            }
            admit(socket, address: address)
        }
    }

    /// Registers and starts a connection thread, or answers 503 when at capacity (or stopping).
    private func admit(_ socket: Socket, address: String) {
        let id: Int? = state.withLock { state in
            guard state.phase == .running, state.connections.count < configuration.maxConnections else { return nil }
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.connections[id] = socket
            connectionThreads.enter()
            return id
        }
        guard let id else {
            let body = "server busy\n"
            let response =
                "HTTP/1.1 503 Service Unavailable\r\nDate: \(HTTPDate.string())\r\nServer: \(configuration.serverName)\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Retry-After: 1\r\nConnection: close\r\n\r\n\(body)"
            try? socket.sendAll(Array(response.utf8))
            socket.closeGracefully(drainMilliseconds: 50)
            return
        }
        let connection = HTTPConnection(
            socket: socket, remoteAddress: address, configuration: configuration, handler: handler)
        let thread = Thread { [self] in
            connection.run()
            state.withLock { _ = $0.connections.removeValue(forKey: id) }
            socket.closeGracefully()
            connectionThreads.leave()
        }
        thread.name = "HTTPServer connection \(address)"
        thread.start()
    }
}
