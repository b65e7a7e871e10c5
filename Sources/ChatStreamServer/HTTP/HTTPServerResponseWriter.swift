// HTTPServerResponseWriter: writes one response on the connection's thread.
//
// Two shapes: `respond` sends a whole response with `Content-Length`; `startStream` sends the head
// with `Transfer-Encoding: chunked` (HTTP/1.1) or no length and a close (HTTP/1.0), then each `write`
// is one chunk sent at once (the socket has TCP_NODELAY), and `finishStream` sends the last chunk.
// The writer owns the framing headers (`Content-Length`, `Transfer-Encoding`, `Connection`): a
// handler's own values for them are dropped. When the peer has gone, writes throw
// `HTTPServerError.connectionClosed`, so a handler pacing a stream notices a cancelled client; so
// do writes the peer does not take within the send timeout (a client that stopped reading).

import ChatStream
import ChatStreamHTTP

/// Writes the response to one request. Use it only on the thread that called the handler.
///
/// ```swift
/// let server = HTTPServer { request, response in
///     try response.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
///     for word in ["Hello", "world"] {
///         try response.write(Array("data: \(word)\n\n".utf8))
///         Thread.sleep(forTimeInterval: 0.05)
///     }
///     try response.finishStream()
/// }
/// ```
package final class HTTPServerResponseWriter {
    private enum State {
        case idle
        case streaming(chunked: Bool)
        case done
        case broken
        case handedOff
    }

    private let socket: Socket
    private let isHead: Bool
    private let isHTTP10: Bool
    private let serverName: String
    private var sendTimeout: Duration
    private var state = State.idle
    /// Whether the connection stays open for another request after this response.
    private(set) var keepAlive: Bool
    /// Gives a handed-off connection back to the server for its next requests (nil: it closes).
    private let resumption: (@Sendable (Socket) -> Void)?
    /// Called by ``handOff()`` before the socket leaves: the server forgets the connection then.
    private let handingOff: (@Sendable () -> Void)?

    /// A writer for the response to `request` on `socket`; `resumption` (given when nothing of a
    /// next request was read yet) lets a handed-off stream give the connection back at its end;
    /// `handingOff` is called when the socket is handed off, before its new owner has it.
    init(
        socket: Socket, request: HTTPServerRequest, configuration: HTTPServerConfiguration,
        resumption: (@Sendable (Socket) -> Void)? = nil, handingOff: (@Sendable () -> Void)? = nil
    ) {
        self.socket = socket
        self.resumption = resumption
        self.handingOff = handingOff
        self.isHead = request.method == "HEAD"
        self.isHTTP10 = request.version.minor == 0
        self.serverName = configuration.serverName
        self.sendTimeout = configuration.sendTimeout
        self.keepAlive = request.wantsKeepAlive
    }

    /// Whether a response head has been sent (or the connection aborted).
    var hasStartedResponse: Bool {
        if case .idle = state { return false }
        return true
    }

    /// Sends a complete response; `Content-Length` is set from `body` (a `HEAD` request gets no body).
    ///
    /// - Throws: `HTTPServerError.connectionClosed` if the peer has gone, `.invalidState` if a response
    ///   was already started or a header contains CR or LF.
    package func respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) throws {
        guard case .idle = state else { throw HTTPServerError.invalidState.with(message: "response already started") }
        let bodyAllowed = !HTTPStatus.forbidsBody(status)
        var head = try makeHead(
            status: status, headers: headers,
            framing: bodyAllowed ? [("Content-Length", String(body.count))] : [])
        if bodyAllowed && !isHead { head.append(contentsOf: body) }
        try send(head)
        state = .done
    }

    /// Sends a response head for a body written piece by piece with ``write(_:)``.
    ///
    /// - Throws: as ``respond(status:headers:body:)``.
    package func startStream(status: Int, headers: [(String, String)] = []) throws {
        guard case .idle = state else { throw HTTPServerError.invalidState.with(message: "response already started") }
        let chunked = !isHTTP10
        if !chunked { keepAlive = false }
        let head = try makeHead(
            status: status, headers: headers, framing: chunked ? [("Transfer-Encoding", "chunked")] : [])
        try send(head)
        state = .streaming(chunked: chunked)
    }

    /// Sends a whole streamed response at once: the head of ``startStream(status:headers:)``, the
    /// pieces of `body` together as one chunk, and the last chunk, in one send (a body known whole
    /// before its head: a short reply stored finished, its events the pieces). The client reads
    /// the same bytes as from ``startStream(status:headers:)``, ``write(_:)-([UInt8])`` and
    /// ``finishStream()``; an HTTP/1.0 client gets the body unframed and the connection closes
    /// after it.
    ///
    /// - Throws: as ``respond(status:headers:body:)``.
    package func streamWhole(status: Int, headers: [(String, String)] = [], body: some Collection<[UInt8]>) throws {
        guard case .idle = state else { throw HTTPServerError.invalidState.with(message: "response already started") }
        let chunked = !isHTTP10
        if !chunked { keepAlive = false }
        var bytes = try makeHead(
            status: status, headers: headers, framing: chunked ? [("Transfer-Encoding", "chunked")] : [])
        if !isHead {
            let size = body.reduce(0) { $0 + $1.count }
            bytes.reserveCapacity(bytes.count + size + 16)
            if chunked && size > 0 {
                bytes.append(contentsOf: String(size, radix: 16).utf8)
                bytes.append(contentsOf: [0x0D, 0x0A])
            }
            for piece in body { bytes.append(contentsOf: piece) }
            if chunked {
                if size > 0 { bytes.append(contentsOf: [0x0D, 0x0A]) }
                bytes.append(contentsOf: Array("0\r\n\r\n".utf8))
            }
        }
        try send(bytes)
        state = .done
    }

    /// Sends `bytes` as one chunk, at once. An empty write sends nothing.
    ///
    /// - Throws: `HTTPServerError.connectionClosed` when the peer has gone (stop producing then),
    ///   `.invalidState` outside a stream.
    package func write(_ bytes: [UInt8]) throws {
        guard case .streaming(let chunked) = state else {
            if case .broken = state { throw HTTPServerError.connectionClosed }
            if case .handedOff = state { throw HTTPServerError.invalidState.with(message: "handed off") }
            throw HTTPServerError.invalidState.with(message: "write outside a stream")
        }
        guard !bytes.isEmpty, !isHead else { return }
        if chunked {
            var frame = Array(String(bytes.count, radix: 16).utf8)
            frame.reserveCapacity(frame.count + bytes.count + 4)
            frame.append(contentsOf: [0x0D, 0x0A])
            frame.append(contentsOf: bytes)
            frame.append(contentsOf: [0x0D, 0x0A])
            try send(frame)
        } else {
            try send(bytes)
        }
    }

    /// Sends UTF-8 text as one chunk; see ``write(_:)-([UInt8])``.
    package func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    /// Ends a stream (the terminating zero-length chunk). Calling it twice does nothing.
    package func finishStream() throws {
        switch state {
        case .streaming(let chunked):
            state = .done
            if chunked && !isHead { try send(Array("0\r\n\r\n".utf8)) }
        case .done:
            return
        case .broken:
            throw HTTPServerError.connectionClosed
        case .handedOff:
            return
        case .idle:
            throw HTTPServerError.invalidState.with(message: "finishStream without startStream")
        }
    }

    /// Hands the connection over after a stream's head (and any writes so far) to whoever serves
    /// the rest of the body (a live stream's writer): the connection's thread then neither reads
    /// nor closes it. Returns the socket and whether the body is chunked; nil outside a stream or
    /// for a `HEAD` request (then the handler just returns).
    func handOff() -> (socket: Socket, chunked: Bool)? {
        guard case .streaming(let chunked) = state, !isHead else { return nil }
        state = .handedOff
        keepAlive = false
        // Before the new owner has it: it may close the socket (or give it back as a new
        // connection) at once, and the server must not still hold its descriptor then.
        handingOff?()
        return (socket, chunked)
    }

    /// What the new owner of a handed-off stream calls once the stream ended cleanly (its last
    /// chunk written) to give the connection back to the server, which then serves its next
    /// requests: nil when the connection must close at the stream's end instead (the client asked
    /// to close, HTTP/1.0, a `HEAD`, or bytes of a next request were already read). Read it before
    /// ``startStream(status:headers:)``: a stream that cannot give the connection back must say
    /// `Connection: close` in its head.
    var resumptionAfterHandOff: (@Sendable (Socket) -> Void)? {
        guard keepAlive, !isHTTP10, !isHead, case .idle = state else { return nil }
        return resumption
    }

    /// Whether ``handOff()`` gave the connection away.
    var isHandedOff: Bool {
        if case .handedOff = state { return true }
        return false
    }

    /// Bounds how long one later write may block on a peer that stops reading; past it the write
    /// throws `connectionClosed` (an endless stream uses this so a stalled reader cannot hold it).
    public func setWriteTimeout(_ timeout: Duration) {
        sendTimeout = timeout  // each send's deadline (Socket.sendAll sets SO_SNDTIMEO from it)
    }

    /// Drops the connection now, mid-response if need be (the client sees a truncated response).
    /// Later writes throw `connectionClosed`. For fault injection in tests.
    func abortConnection() {
        state = .broken
        keepAlive = false
        socket.setResetOnClose()
        socket.shutdown()
    }

    /// Called by the connection after the handler returned or threw: sends a 500 if nothing was sent,
    /// ends an unfinished stream (or aborts it if the handler threw).
    func complete(handlerError: (any Error)?) {
        switch state {
        case .idle:
            keepAlive = keepAlive && handlerError == nil
            let message = handlerError.map { "handler failed: \($0)" } ?? "handler sent no response"
            try? respond(
                status: 500, headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: Array((message + "\n").utf8))
        case .streaming:
            if handlerError != nil {
                abortConnection()
            } else {
                try? finishStream()
            }
        case .done, .broken, .handedOff:
            break
        }
    }

    private func send(_ bytes: [UInt8]) throws(HTTPServerError) {
        do {
            try socket.sendAll(bytes, deadline: .now + sendTimeout)
        } catch {
            state = .broken
            keepAlive = false
            throw error
        }
    }

    private func makeHead(status: Int, headers: [(String, String)], framing: [(String, String)]) throws -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(for: status))\r\n"
        var hasDate = false
        var hasServer = false
        for (name, value) in headers {
            guard !name.isEmpty, !(name + value).contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw HTTPServerError.invalidState.with(message: "invalid header field \(name)")
            }
            if HTTPHeaderFields.namesEqual(name, "Content-Length")
                || HTTPHeaderFields.namesEqual(name, "Transfer-Encoding")
            {
                continue
            }
            if HTTPHeaderFields.namesEqual(name, "Connection") {
                if value.lowercased().contains("close") { keepAlive = false }
                continue
            }
            hasDate = hasDate || HTTPHeaderFields.namesEqual(name, "Date")
            hasServer = hasServer || HTTPHeaderFields.namesEqual(name, "Server")
            text += "\(name): \(value)\r\n"
        }
        if !hasDate { text += "Date: \(HTTPDate.string())\r\n" }
        if !hasServer { text += "Server: \(serverName)\r\n" }
        for (name, value) in framing { text += "\(name): \(value)\r\n" }
        if !keepAlive {
            text += "Connection: close\r\n"
        } else if isHTTP10 {
            text += "Connection: keep-alive\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }
}

/// The writer belongs to its connection's thread.
@available(*, unavailable)
extension HTTPServerResponseWriter: Sendable {}
