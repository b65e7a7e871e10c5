// HTTPServer: a small HTTP/1.1 server on blocking POSIX sockets, one thread per connection.
//
// Why threads: handlers block (a streamed reply sleeps between events), and with a deadline on every
// wait (HTTPConnection) and a cap per client address a slow or abandoned client holds a thread for
// seconds, not minutes (the limits and their defaults: the ChatStreamServer catalog's
// LimitsAndSecurity article; HTTPServerDeadlineTests serve a normal client while slow and abandoned
// connections are held).
//
// An accept thread polls the listening socket and a wake pipe (so `stop()` can end it without racing
// on a closed descriptor). Each accepted connection gets a thread (from WorkerThreads: one that
// served an earlier connection and waits for the next, or a new one) that parses requests and
// calls the handler synchronously; handlers may block or sleep to pace a stream without touching
// Swift concurrency's cooperative pool. A handler may hand its connection off after a stream's head
// (HTTPServerResponseWriter.handOff); its new owner may give it back when the stream ended cleanly,
// and the connection is admitted again, as if just accepted, for its next requests (keep-alive).
// Open connections are registered under a mutex; `stop()` shuts each registered socket down
// (never closes it: only its own thread closes a descriptor, after unregistering, and a handed-off
// one leaves the registry before its new owner has it, so a descriptor number is never reused
// under someone's feet), which wakes blocked reads and makes writes fail, then waits for the
// threads to finish.

import Dispatch
import Foundation
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
package final class HTTPServer: Sendable {
    /// The handler's type: called on the connection's thread for each request.
    package typealias Handler = @Sendable (HTTPServerRequest, HTTPServerResponseWriter) throws -> Void

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
        var connectionsPerAddress: [String: Int] = [:]
        var connectionsPerNetwork: [String: Int] = [:]
        var nextConnectionID = 0
        var pendingRejections = 0
    }

    /// The host the server listens on (`127.0.0.1`, `::1`, `0.0.0.0`, `localhost`, ...).
    let host: String
    private let requestedPort: UInt16
    /// The limits and timeouts in force.
    let configuration: HTTPServerConfiguration
    private let handler: Handler
    private let state = Mutex(State())
    private let connectionThreads = DispatchGroup()
    /// The threads connections are served on (kept between connections).
    private let workers = WorkerThreads(name: "HTTPServer connection", stackSize: 512 * 1024)
    private let acceptThreadDone = DispatchSemaphore(value: 0)
    /// Over-cap connections are answered 503 and drained here, off the accept thread.
    private let rejections = DispatchQueue(label: "HTTPServer.rejections", attributes: .concurrent)

    /// A server for `host:port` (port 0: the system picks a free one, read it from ``port`` after
    /// ``start()``). Nothing happens until ``start()``.
    package init(
        host: String = "127.0.0.1", port: UInt16 = 0, configuration: HTTPServerConfiguration = .init(),
        handler: @escaping Handler
    ) {
        self.host = host
        self.requestedPort = port
        self.configuration = configuration
        self.handler = handler
    }

    /// The port the server listens on (the actual one when created with port 0); 0 before ``start()``.
    package var port: UInt16 { state.withLock { $0.port } }

    /// The number of connections open right now.
    var openConnections: Int { state.withLock { $0.connections.count } }

    /// Binds, listens and starts accepting connections on a background thread.
    ///
    /// - Throws: ``HTTPServerError/alreadyStarted`` when called twice, ``HTTPServerError/addressResolution``
    ///   or ``HTTPServerError/socket`` when the address cannot be bound.
    package func start() throws {
        try state.withLock { state throws(HTTPServerError) in
            guard state.phase == .idle else { throw HTTPServerError.alreadyStarted }
            let listener = try Socket.listen(host: host, port: requestedPort)
            guard let pipe = try? Socket.makePipe() else {
                listener.close()
                throw HTTPServerError.socket.with(message: Socket.errnoText("pipe"))
            }
            state.phase = .running
            state.port = listener.localPort
            state.wakeWriteFD = pipe.write
            let wakeReadFD = pipe.read
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
    package func stop() {
        let wakeFD: Int32? = state.withLock { state in
            guard state.phase == .running else {
                state.phase = .stopped
                return nil
            }
            state.phase = .stopped
            return state.wakeWriteFD
        }
        guard let wakeFD else { return }
        Socket.signal(wakeFD)
        acceptThreadDone.wait()
        Socket.close(wakeFD)
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
            Socket.close(wakeReadFD)
            acceptThreadDone.signal()
        }
        while true {
            guard let ready = Socket.waitReadable([listener.fd, wakeReadFD], timeoutMilliseconds: -1) else { continue }
            if ready == 1 { return }
            guard let (socket, host, peer) = listener.accept(sendBufferBytes: configuration.sendBufferBytes) else {
                if Socket.isResourceExhaustion { usleep(10_000) }
                continue
            }
            admit(socket, host: host, peer: peer)
        }
    }

    /// Registers and starts a connection thread, or answers 503 when the server, this client address
    /// or its network (/24, /64) is at its cap (or the server is stopping). A `resumed` connection
    /// (given back after a handed-off stream) is closed instead: no request of its is waiting for an answer.
    private func admit(_ socket: Socket, host: String, peer: String, resumed: Bool = false) {
        let cap = configuration.maxConnections
        let perAddress = configuration.maxConnectionsPerAddress
        let perNetwork = configuration.maxConnectionsPerNetwork
        let network = AddressCaps.network(of: host)
        let id: Int? = state.withLock { state in
            guard state.phase == .running, state.connections.count < cap,
                state.connectionsPerAddress[host, default: 0] < perAddress,
                state.connectionsPerNetwork[network, default: 0] < perNetwork
            else { return nil }
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.connections[id] = socket
            state.connectionsPerAddress[host, default: 0] += 1
            state.connectionsPerNetwork[network, default: 0] += 1
            connectionThreads.enter()
            return id
        }
        guard let id else {
            guard resumed else { return reject(socket) }
            return rejections.async { socket.closeGracefully(drainMilliseconds: 50) }
        }
        // The connection leaves the registry once, when its thread ends or when a response hands
        // its socket off (whichever comes first): a handed-off socket is its new owner's, who may
        // close it at once, and `stop()` must never shut down a descriptor number the process has
        // since given to another connection.
        let registered = Atomic(true)
        let release: @Sendable () -> Void = { [self] in
            guard registered.exchange(false, ordering: .acquiringAndReleasing) else { return }
            state.withLock { state in
                _ = state.connections.removeValue(forKey: id)
                state.connectionsPerAddress[host, default: 1] -= 1
                if state.connectionsPerAddress[host] == 0 { state.connectionsPerAddress[host] = nil }
                state.connectionsPerNetwork[network, default: 1] -= 1
                if state.connectionsPerNetwork[network] == 0 { state.connectionsPerNetwork[network] = nil }
            }
        }
        let connection = HTTPConnection(
            socket: socket, remoteAddress: peer, configuration: configuration, handler: handler,
            resumption: { [weak self] socket in
                guard let self else { return socket.close() }
                socket.prepareForRequests()
                self.admit(socket, host: host, peer: peer, resumed: true)
            }, handingOff: release)
        workers.run { [self] in
            let handedOff = connection.run()
            release()
            // A handed-off socket (a live stream) is its new owner's to close; its slot is free now.
            if !handedOff { socket.closeGracefully() }
            connectionThreads.leave()
        }
    }

    /// Answers 503 off the accept thread (its short drain must not stall accepting); beyond 64 pending
    /// rejections the connection is reset at once instead.
    private func reject(_ socket: Socket) {
        let admitted = state.withLock { state in
            guard state.pendingRejections < 64 else { return false }
            state.pendingRejections += 1
            return true
        }
        guard admitted else { return socket.resetAndClose() }
        let response = Array(
            ("HTTP/1.1 503 Service Unavailable\r\nDate: \(HTTPDate.string())\r\nServer: \(configuration.serverName)\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n"
                + "Retry-After: 1\r\nConnection: close\r\n\r\nserver busy\n").utf8)
        rejections.async { [self] in
            try? socket.sendAll(response, deadline: .now + .seconds(1))
            socket.closeGracefully(drainMilliseconds: 50)
            state.withLock { $0.pendingRejections -= 1 }
        }
    }
}
