// PlainHTTPExchange: one request in flight on PlainHTTPTransport, on a thread of its own.
//
// The thread connects, sends the request, reads and parses the response head, hands it to
// `send`'s caller, then reads the body, undoes its framing (Content-Length, chunked, or until the
// close) and appends the bytes to `pending`. The consumer takes everything pending at each step
// (one batch, the HTTPBodyBatchSource protocol CurlExchange implements too). State shared with
// the consumer and with cancellation is behind a mutex; every path that ends the exchange goes
// through `end`, which runs once, and wakes the thread through the socket's pipe.
//
// Flow control as CurlTransport's: when `pending` reaches `Limits.maxBufferedBytes` the thread
// stops reading the socket (TCP pushes back on the server) and waits on the pipe alone until the
// consumer has taken the batch; while paused the idle clock stops. The idle timeout (connecting,
// waiting for the head, between two reads of the body) is the request's.

import ChatStreamHTTP
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request on ``PlainHTTPTransport``: the thread that runs it and the body state it shares.
final class PlainHTTPExchange: HTTPBodyBatchSource, @unchecked Sendable {
    struct Shared: BodyBatchState {
        var head: CheckedContinuation<HTTPResponse, any Error>?
        var headDelivered = false
        /// No byte will be added to `pending`; `failure` says why (nil: the body is complete).
        var ended = false
        var failure: TransportError?
        var lastActivity = ContinuousClock.now
        /// Body bytes received and not yet taken by the consumer.
        var pending: [UInt8] = []
        /// The consumer, when it found `pending` empty.
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
        /// Receiving is paused until the consumer takes what is pending.
        var paused = false
        /// The capacity a new batch starts with: the size of the last one taken (at least 16 KiB).
        var batchCapacity = 16 << 10
    }

    /// The hop: URL, method, the request bytes to send.
    let url: URL
    let method: String
    let requestBytes: [UInt8]
    let idleTimeout: Duration
    let limits: PlainHTTPTransport.Limits
    let socket: PlainHTTPSocket
    let shared = Mutex(Shared())

    init(url: URL, method: String, requestBytes: [UInt8], idleTimeout: Duration, limits: PlainHTTPTransport.Limits)
        throws
    {
        self.url = url
        self.method = method
        self.requestBytes = requestBytes
        self.idleTimeout = idleTimeout
        self.limits = limits
        self.socket = try PlainHTTPSocket()
    }

    /// Installs `send`'s continuation and starts the thread (or fails at once when cancelled first).
    func start(head continuation: CheckedContinuation<HTTPResponse, any Error>) {
        let early: TransportError? = shared.withLock { state in
            if state.ended { return state.failure ?? TransportError(.cancelled, "the request was cancelled") }
            state.head = continuation
            state.lastActivity = .now
            return nil
        }
        if let early {
            continuation.resume(throwing: early)
            return
        }
        let thread = Thread { [self] in
            do {
                try run()
            } catch let error as TransportError {
                end(with: error)
            } catch let error as HTTPResponseParseError {
                end(with: TransportError(parsing: error))
            } catch {
                end(with: TransportError(.connectionLost, "\(error)"))
            }
            socket.closeSocket()
        }
        thread.name = "PlainHTTPExchange"
        thread.start()
    }

    /// Whether the exchange has not ended.
    var isRunning: Bool { shared.withLock { !$0.ended } }

    /// Ends the exchange with `error` and wakes its thread (any thread).
    func fail(_ error: TransportError) {
        end(with: error)
        socket.wake()
    }

    /// Ends the exchange: resumes whoever waits. False when it had ended already.
    @discardableResult
    func end(with error: TransportError?) -> Bool {
        let waiters = shared.withLock { $0.end(with: error) }
        guard let waiters else { return false }
        waiters.head?.resume(
            throwing: error ?? TransportError(.connectionLost, "the connection closed before the response head ended"))
        if let body = waiters.body {
            if let error { body.resume(throwing: error) } else { body.resume(returning: nil) }
        }
        return true
    }

    // MARK: - The thread

    /// The deadline of the current wait: the idle timeout past the last activity.
    private var idleDeadline: ContinuousClock.Instant {
        shared.withLock { $0.lastActivity } + idleTimeout
    }

    private func timedOut(waitingFor what: String) -> TransportError {
        TransportError(
            .timedOut, "nothing for \(idleTimeout) while waiting for \(what)",
            underlyingError: URLError(.timedOut))
    }

    private func run() throws {
        guard let host = url.host, !host.isEmpty else {
            throw TransportError(.connectionFailed, "the URL \(url.absoluteString) has no host")
        }
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        do {
            guard try socket.connect(host: name, port: url.port ?? 80, deadline: idleDeadline), isRunning else {
                return
            }
        } catch let error as TransportError where error.kind == .connectionFailed {
            throw TransportError(
                error.kind, error.message,
                underlyingError: URLError(
                    error.message.hasPrefix("cannot resolve") ? .cannotFindHost : .cannotConnectToHost,
                    userInfo: [NSLocalizedDescriptionKey: error.message]))
        }
        guard try sendRequest() else { return }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { scratch.deallocate() }
        guard let (head, rest) = try readHead(scratch) else { return }
        let framing = try HTTPBodyFraming(head: head, method: method)
        guard let delivered = shared.withLock({ $0.takeHead() }) else { return }
        delivered.resume(
            returning: HTTPResponse(status: head.status, headers: head.headers, body: HTTPBody(batches: self)))
        try readBody(framing, first: rest, scratch)
    }

    /// Why sending the request failed, when it did: the server may have answered first (a 413
    /// before the whole body) and closed, so its answer is read, and this error counts only when
    /// there is none (thread only).
    private var sendFailure: TransportError?

    /// Sends the request bytes (all of them, or until the server answers early); false when the
    /// exchange ended meanwhile.
    private func sendRequest() throws -> Bool {
        var sent = 0
        while sent < requestBytes.count {
            let count: Int
            do {
                count = try requestBytes.withUnsafeBytes {
                    try socket.send(UnsafeRawBufferPointer(rebasing: $0[sent...]))
                }
            } catch let error as TransportError {
                sendFailure = error
                return true
            }
            sent += count
            if count > 0 { continue }
            switch socket.wait(forWriting: true, until: idleDeadline) {
            case .ready: continue
            case .answered: return true
            case .woken: guard isRunning else { return false }
            case .timedOut: throw timedOut(waitingFor: "the request to be sent")
            }
        }
        return true
    }

    /// Receives into `scratch` after waiting for the socket: the count (0 at the close), or nil
    /// when the exchange ended meanwhile. `waitFirst`: the last read took less than it could, so
    /// the socket is most likely empty: wait before reading rather than read, fail and wait (a
    /// streamed reply arrives an event at a time: one system call fewer for each).
    private func receive(
        _ scratch: UnsafeMutableRawBufferPointer, waitingFor what: String, waitFirst: Bool = false
    ) throws -> Int? {
        var waitFirst = waitFirst
        while true {
            // Paused: the consumer's delay, not the server's silence; no read until it took the batch.
            while shared.withLock({ $0.paused }) {
                socket.waitForWake()
                guard isRunning else { return nil }
            }
            if !waitFirst {
                switch try socket.receive(into: scratch) {
                case .bytes(let count): return count
                case .closed: return 0
                case .wouldBlock: break
                }
            }
            waitFirst = false
            switch socket.wait(forWriting: false, until: idleDeadline) {
            case .ready, .answered: continue
            case .woken: guard isRunning else { return nil }
            case .timedOut: throw timedOut(waitingFor: what)
            }
        }
    }

    /// Reads until the final response head is in: the head and the bytes after it, or nil when ended.
    private func readHead(_ scratch: UnsafeMutableRawBufferPointer) throws -> (HTTPResponseHead, ArraySlice<UInt8>)? {
        var parser = HTTPResponseHeadParser(maxHeaderBytes: limits.maxResponseHeaderBytes)
        var buffer: [UInt8] = []
        while true {
            let received: Int?
            do {
                received = try receive(scratch, waitingFor: "the response")
            } catch let error as TransportError where error.kind == .connectionLost {
                throw sendFailure ?? error
            }
            guard let count = received else { return nil }
            guard count > 0 else {
                if let sendFailure { throw sendFailure }
                let prefix = Array("HTTP/1.".utf8)
                if !buffer.isEmpty, !buffer.starts(with: prefix.prefix(buffer.count)) {
                    throw TransportError(
                        .invalidResponse,
                        "the answer is not an HTTP/1.x response: its first bytes are "
                            + "\"\(String(decoding: buffer.prefix(40), as: UTF8.self))\"")
                }
                throw TransportError(
                    .connectionLost,
                    buffer.isEmpty
                        ? "the server closed the connection without a response"
                        : "the connection closed before the response head ended (after \(buffer.count) bytes)",
                    underlyingError: URLError(.networkConnectionLost))
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count]))
            if let (head, bodyStart) = try parser.parse(buffer) {
                shared.withLock { $0.lastActivity = .now }
                return (head, buffer[bodyStart...])
            }
        }
    }

    /// Reads the body to its end as `framing` says, handing its bytes to the consumer.
    private func readBody(
        _ framing: HTTPBodyFraming, first: ArraySlice<UInt8>, _ scratch: UnsafeMutableRawBufferPointer
    )
        throws
    {
        var chunked = ChunkedBodyDecoder(maxTrailerBytes: limits.maxResponseHeaderBytes)
        var remaining: Int
        switch framing {
        case .none:
            end(with: nil)
            return
        case .length(let length): remaining = length
        case .chunked, .untilClose: remaining = Int.max
        }
        var decoded: [UInt8] = []
        /// Takes `bytes` off the wire (read in place: the read buffer or the head's); true when the
        /// body is complete.
        func take(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Bool {
            switch framing {
            case .length:
                let used = UnsafeBufferPointer(rebasing: bytes.prefix(remaining))
                remaining -= used.count
                if !used.isEmpty { guard deliver(used) else { return true } }
                return remaining == 0
            case .chunked:
                decoded.removeAll(keepingCapacity: true)
                do {
                    try chunked.decode(bytes, into: &decoded)
                } catch {
                    // What came before the fault is the consumer's, then the error.
                    if !decoded.isEmpty { _ = decoded.withUnsafeBufferPointer { deliver($0) } }
                    throw error
                }
                if !decoded.isEmpty { guard decoded.withUnsafeBufferPointer({ deliver($0) }) else { return true } }
                return chunked.isComplete
            case .untilClose:
                if !bytes.isEmpty { guard deliver(bytes) else { return true } }
                return false
            case .none:
                return true
            }
        }
        if try first.withUnsafeBufferPointer({ try take($0) }) {
            end(with: nil)
            return
        }
        var drained = false
        while true {
            guard let count = try receive(scratch, waitingFor: "the next body chunk", waitFirst: drained) else {
                return
            }
            drained = count < scratch.count
            if count == 0 {
                switch framing {
                case .length(let length):
                    throw TransportError(
                        .connectionLost,
                        "the connection closed after \(length - remaining) of the body's \(length) bytes",
                        underlyingError: URLError(.networkConnectionLost))
                case .chunked:
                    throw TransportError(
                        .connectionLost,
                        "the connection closed before the chunked body's last chunk (after \(chunked.offset) bytes)",
                        underlyingError: URLError(.networkConnectionLost))
                default:
                    end(with: nil)
                    return
                }
            }
            if try take(UnsafeRawBufferPointer(rebasing: scratch[..<count]).bindMemory(to: UInt8.self)) {
                end(with: nil)
                return
            }
        }
    }

    /// Hands body bytes to the consumer (or to `pending`); false when the exchange has ended.
    private func deliver(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let limit = limits.maxBufferedBytes
        let result: (running: Bool, waiter: CheckedContinuation<[UInt8]?, any Error>?) = shared.withLock { state in
            guard !state.ended else { return (false, nil) }
            return (true, state.receive(bytes, pauseAt: limit))
        }
        result.waiter?.resume(returning: Array(bytes))
        return result.running
    }

    // MARK: - The body's consumer

    func nextBatch() async throws -> [UInt8]? {
        try await BodyBatches.next(
            from: shared, maxBufferedBytes: limits.maxBufferedBytes, resumeReceiving: { socket.wake() },
            cancelled: { self.fail(TransportError(.cancelled, "the response body's consumer stopped")) })
    }

    func bodyDropped() {
        fail(TransportError(.cancelled, "the response body was dropped"))
    }
}
