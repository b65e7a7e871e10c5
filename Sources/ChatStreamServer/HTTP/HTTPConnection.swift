// HTTPConnection: serves the requests of one accepted socket on its own thread.
//
// Loop: hand out every request the decoder can complete from buffered bytes (answering
// `100 Continue` when asked), call the handler synchronously, and only when the buffer holds no
// complete request read more. Every wait for bytes is bounded by the deadline of where the request
// stands: the idle timeout between requests, the head deadline from a head's first byte, and for a
// body the minimum rate (each byte received buys 1/rate seconds after a grace period); no single wait
// exceeds the read timeout. Missing a deadline mid-request is answered 408. A decoding error is
// answered with its status and closes the connection. Response writes carry the send timeout.

import ChatStream
import ChatStreamHTTP

/// One client connection, run on a dedicated thread.
struct HTTPConnection {
    let socket: Socket
    let remoteAddress: String
    let configuration: HTTPServerConfiguration
    let handler: @Sendable (HTTPServerRequest, HTTPServerResponseWriter) throws -> Void
    /// Gives the connection back to the server after a handed-off stream ended cleanly.
    var resumption: (@Sendable (Socket) -> Void)?
    /// Called when a response hands the socket off, before its new owner has it.
    var handingOff: (@Sendable () -> Void)?

    /// Serves requests until the peer closes, a request asks to close, a deadline passes, an error,
    /// or a handler hands the socket off (then true: the caller must not close it).
    func run() -> Bool {
        var decoder = HTTPRequestDecoder(configuration: configuration, remoteAddress: remoteAddress)
        var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        var phaseStart = ContinuousClock.now
        var lastProgress = HTTPRequestDecoder.Progress.idle
        var currentWatermark = 1
        while true {
            do {
                while let event = try decoder.next() {
                    switch event {
                    case .expectContinue:
                        try socket.sendAll(
                            Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), deadline: .now + configuration.sendTimeout)
                    case .request(let request):
                        switch serve(request, resumable: decoder.isIdle) {
                        case .keepOpen: phaseStart = .now
                        case .close: return false
                        case .handedOff: return true
                        }
                    }
                }
            } catch let error as HTTPRequestDecodingError {
                reject(status: error.status, reason: error.reason)
                return false
            } catch {
                return false  // the peer went away while we answered 100 Continue
            }
            let progress = decoder.progress
            if Self.phase(of: progress) != Self.phase(of: lastProgress) { phaseStart = .now }
            lastProgress = progress
            let deadline = deadline(for: progress, since: phaseStart)
            let wait = min(deadline - .now, configuration.requestReadTimeout)
            // A body of known length is waited for in pieces of up to 64 KiB, so its cost does not
            // depend on how small the client's writes are; bytes that came short of the mark are
            // still read at the deadline, and count for the minimum rate.
            let watermark = min(decoder.knownBytesAwaited ?? 1, 64 * 1024)
            if watermark != currentWatermark {
                socket.setReceiveLowWatermark(watermark)
                currentWatermark = watermark
            }
            let readable = wait > .zero && socket.waitReadable(timeoutMilliseconds: max(1, wait.pollMilliseconds))
            guard readable || (watermark > 1 && socket.bytesAvailable > 0) else {
                if progress != .idle { reject(status: 408, reason: Self.timeoutReason(progress)) }
                return false
            }
            guard let count = try? socket.receive(into: &readBuffer, withoutWaiting: watermark > 1), count > 0 else {
                return false
            }
            decoder.feed(readBuffer[0..<count])
        }
    }

    /// When the request standing at `progress` (in that phase since `start`) must have moved on.
    private func deadline(for progress: HTTPRequestDecoder.Progress, since start: ContinuousClock.Instant)
        -> ContinuousClock.Instant
    {
        switch progress {
        case .idle:
            return start + configuration.idleTimeout
        case .head:
            return start + configuration.requestHeadTimeout
        case .body(let received):
            let rate = max(1, configuration.minimumBodyBytesPerSecond)
            let earned = Duration.milliseconds(Int64(received) * 1000 / Int64(rate))
            return start + configuration.bodyRateGracePeriod + earned
        }
    }

    private static func phase(of progress: HTTPRequestDecoder.Progress) -> Int {
        switch progress {
        case .idle: 0
        case .head: 1
        case .body: 2
        }
    }

    private static func timeoutReason(_ progress: HTTPRequestDecoder.Progress) -> String {
        switch progress {
        case .body: "request body arrived too slowly"
        default: "request head not received in time"
        }
    }

    private enum Outcome {
        case keepOpen, close, handedOff
    }

    /// Runs the handler for one request (`resumable`: nothing of a next request was read, so a
    /// handed-off stream may give the connection back at its end).
    private func serve(_ request: HTTPServerRequest, resumable: Bool) -> Outcome {
        let writer = HTTPServerResponseWriter(
            socket: socket, request: request, configuration: configuration,
            resumption: resumable ? resumption : nil, handingOff: handingOff)
        var failure: (any Error)?
        do {
            try handler(request, writer)
        } catch {
            failure = error
        }
        writer.complete(handlerError: failure)
        if writer.isHandedOff { return .handedOff }
        return writer.keepAlive ? .keepOpen : .close
    }

    /// Answers a request that could not be decoded (or came too slowly) and lets the connection close.
    private func reject(status: Int, reason: String) {
        let request = HTTPServerRequest(
            method: "GET", target: "/", headers: HTTPHeaderFields([("Connection", "close")]))
        let writer = HTTPServerResponseWriter(socket: socket, request: request, configuration: configuration)
        try? writer.respond(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array("\(reason)\n".utf8))
    }
}
