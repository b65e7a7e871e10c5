// HTTPConnection: serves the requests of one accepted socket on its own thread.
//
// Loop: hand out every request the decoder can complete from buffered bytes (answering
// `100 Continue` when asked), call the handler synchronously, and only when the buffer holds no
// complete request read more, waiting at most the idle timeout between requests and the read
// timeout inside one. A decoding error is answered with its status and closes the connection.

/// One client connection, run on a dedicated thread.
struct HTTPConnection {
    let socket: Socket
    let remoteAddress: String
    let configuration: HTTPServerConfiguration
    let handler: @Sendable (HTTPServerRequest, HTTPServerResponseWriter) throws -> Void

    /// Serves requests until the peer closes, a request asks to close, a timeout, or an error.
    func run() {
        var decoder = HTTPRequestDecoder(configuration: configuration, remoteAddress: remoteAddress)
        var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            do {
                while let event = try decoder.next() {
                    switch event {
                    case .expectContinue:
                        try socket.sendAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                    case .request(let request):
                        guard serve(request) else { return }
                    }
                }
            } catch let error as HTTPRequestDecodingError {
                reject(status: error.status, reason: error.reason)
                return
            } catch {
                return  // the peer went away while we answered 100 Continue
            }
            let idle = decoder.isIdle
            let timeout = idle ? configuration.idleTimeout : configuration.requestReadTimeout
            guard socket.waitReadable(timeoutMilliseconds: timeout.pollMilliseconds) else {
                if !idle { reject(status: 408, reason: "request not received in time") }
                return
            }
            guard let count = try? socket.receive(into: &readBuffer), count > 0 else { return }
            decoder.feed(readBuffer[0..<count])
        }
    }

    /// Runs the handler for one request; true when the connection stays open.
    private func serve(_ request: HTTPServerRequest) -> Bool {
        let writer = HTTPServerResponseWriter(socket: socket, request: request, serverName: configuration.serverName)
        var failure: (any Error)?
        do {
            try handler(request, writer)
        } catch {
            failure = error
        }
        writer.complete(handlerError: failure)
        return writer.keepAlive
    }

    /// Answers a request that could not be decoded and lets the connection close.
    private func reject(status: Int, reason: String) {
        let request = HTTPServerRequest(
            method: "GET", target: "/", headers: HTTPServerHeaders([("Connection", "close")]))
        let writer = HTTPServerResponseWriter(socket: socket, request: request, serverName: configuration.serverName)
        try? writer.respond(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array("\(reason)\n".utf8))
    }
}
