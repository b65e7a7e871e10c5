// UpstreamHTTP: the small HTTP/1.1 client a model agent sends its upstream requests with, on the
// server's own sockets (no extra dependency, one blocking thread per reply as the demo agent has).
//
// One request per connection (`Connection: close`). The response head is read whole (at most
// 64 KiB of header fields); the body is handed out as it arrives, de-chunked for
// `Transfer-Encoding: chunked`, counted for `Content-Length`, or read to the close (the parsing is
// ChatStreamHTTP's, shared with the client's PlainHTTPTransport). Every wait is a poll of at most 250 ms, so
// the reader notices a stopped reply quickly and closes the connection, and no wait outlasts the
// agent's timeout. `https://` goes through libcurl instead (UpstreamCurl.swift, Linux), whose body
// is read the same way (UpstreamBodyReading).

import ChatStream
import ChatStreamHTTP
import Foundation

/// Why an upstream exchange failed: what happened, for the reply's error.
struct UpstreamError: Error, Sendable, CustomStringConvertible {
    var message: String
    /// Whether it was the agent's timeout that ended it.
    var timedOut = false
    var description: String { message }
}

/// The body of an upstream response, read as it arrives (over our sockets, or libcurl for
/// https). Whoever holds it calls ``close()`` once.
protocol UpstreamBodyReading: Sendable {
    /// The next body bytes; nil at the body's end. Throws when the connection broke before it,
    /// after the agent's timeout without bytes, or when `shouldStop` says so.
    mutating func next(shouldStop: () -> Bool) throws(UpstreamError) -> [UInt8]?
    /// Closes the connection (the upstream sees it at once).
    func close()
}

extension UpstreamBodyReading {
    /// The next body bytes, waiting as long as the agent's timeout allows.
    mutating func next() throws(UpstreamError) -> [UInt8]? { try next(shouldStop: { false }) }

    /// The whole rest of the body (for an error answer), at most `limit` bytes.
    mutating func rest(limit: Int = 64 * 1024) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < limit, let piece = try? next() { bytes += piece }
        return Array(bytes.prefix(limit))
    }
}

/// An upstream response: its status and headers, and its body to read.
struct UpstreamResponse: Sendable {
    var status: Int
    /// Header names lower-cased, in order.
    var headers: [(name: String, value: String)]
    var body: any UpstreamBodyReading

    func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}

/// Sends upstream requests.
enum UpstreamHTTP {
    /// Connects, sends `POST url` with `headers` and `body`, and reads the response head, each
    /// within `timeout`; `shouldStop` is asked between waits. An `https://` URL goes through
    /// libcurl, which checks the server's certificate against the system's authorities, or
    /// against `caFile` (PEM) when given.
    static func post(
        _ url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration,
        caFile: String? = nil, shouldStop: () -> Bool = { false }
    ) throws(UpstreamError) -> UpstreamResponse {
        if url.lowercased().hasPrefix("https://") {
            #if canImport(CCurl)
                return try CurlUpstream.post(
                    url, headers: headers, body: body, timeout: timeout, caFile: caFile, shouldStop: shouldStop)
            #else
                throw UpstreamError(
                    message: "\(url): https:// upstreams are reached through libcurl, which this build lacks "
                        + "(Linux only for now); put a TLS proxy in front and use http://")
            #endif
        }
        guard let parsed = URL(string: url), let host = parsed.host, parsed.scheme == "http" else {
            throw UpstreamError(message: "\(url): not an http:// or https:// URL")
        }
        let port = UInt16(clamping: parsed.port ?? 80)
        var path = parsed.path.isEmpty ? "/" : parsed.path
        if let query = parsed.query { path += "?" + query }
        let socket: Socket
        do {
            socket = try Socket.connect(host: host, port: port, timeout: timeout)
        } catch {
            throw UpstreamError(message: "cannot connect to the upstream: \(error.message)")
        }
        let hostHeader = host.contains(":") ? "[\(host)]" : host
        var head = "POST \(path) HTTP/1.1\r\nHost: \(hostHeader):\(port)\r\nContent-Length: \(body.count)\r\n"
        head += "Connection: close\r\nUser-Agent: chatstream-server\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        do {
            try socket.sendAll(Array(head.utf8) + body, deadline: .now + timeout)
        } catch {
            socket.close()
            throw UpstreamError(message: "cannot send the request to the upstream: \(error.message)")
        }
        var body = UpstreamBody(socket: socket, timeout: timeout)
        do {
            let (status, headers) = try body.readHead(shouldStop: shouldStop)
            return UpstreamResponse(status: status, headers: headers, body: body)
        } catch {
            socket.close()
            throw error
        }
    }
}

/// The body of an upstream response over our own socket (plain http). The head, the body's
/// framing and the chunked coding are read by ChatStreamHTTP's response parsers, as the client's
/// PlainHTTPTransport reads them.
struct UpstreamBody: UpstreamBodyReading {
    let socket: Socket
    let timeout: Duration
    /// Bytes read but not yet handed out (before the framing is known: the head and what follows).
    private var buffer: [UInt8] = []
    private var framing = HTTPBodyFraming.untilClose
    /// The bytes left of a `Content-Length` body.
    private var remaining = 0
    private var chunked = ChunkedBodyDecoder(maxTrailerBytes: 64 << 10)
    private var sawClose = false

    init(socket: Socket, timeout: Duration) {
        self.socket = socket
        self.timeout = timeout
    }

    /// Closes the connection (the upstream sees it at once).
    func close() {
        socket.shutdown()
        socket.close()
    }

    /// Reads more bytes into the buffer; false when the peer closed. Throws after `timeout`
    /// without bytes, or when `shouldStop` says so (a `stopped` error).
    private mutating func fill(shouldStop: () -> Bool) throws(UpstreamError) -> Bool {
        let deadline = ContinuousClock.now + timeout
        if shouldStop() { throw UpstreamError(message: "stopped") }
        while !socket.waitReadable(timeoutMilliseconds: 250) {
            if shouldStop() { throw UpstreamError(message: "stopped") }
            if ContinuousClock.now >= deadline {
                throw UpstreamError(message: "the upstream sent nothing for \(timeout)", timedOut: true)
            }
        }
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        let count: Int
        do {
            count = try socket.receive(into: &scratch)
        } catch {
            throw UpstreamError(message: "the upstream connection broke: \(error.message)")
        }
        guard count > 0 else {
            sawClose = true
            return false
        }
        buffer += scratch[..<count]
        return true
    }

    /// Reads the response head (at most 64 KiB of header fields) and sets the body's framing:
    /// the status and the header fields, names lower-cased.
    mutating func readHead(shouldStop: () -> Bool) throws(UpstreamError) -> (Int, [(name: String, value: String)]) {
        var parser = HTTPResponseHeadParser(maxHeaderBytes: 64 << 10)
        while true {
            do {
                if let (head, bodyStart) = try parser.parse(buffer) {
                    framing = try HTTPBodyFraming(head: head, method: "POST")
                    if case .length(let length) = framing { remaining = length }
                    buffer.removeFirst(bodyStart)
                    return (head.status, head.headers.map { (name: $0.name.lowercased(), value: $0.value) })
                }
            } catch let error as HTTPResponseParseError {
                throw UpstreamError(message: "the upstream's response: \(error.message)")
            } catch {
                throw UpstreamError(message: "the upstream's response: \(error)")
            }
            guard try fill(shouldStop: shouldStop) else {
                throw UpstreamError(message: "the upstream closed the connection before answering")
            }
        }
    }

    mutating func next(shouldStop: () -> Bool) throws(UpstreamError) -> [UInt8]? {
        while true {
            switch framing {
            case .none:
                return nil
            case .untilClose:
                if !buffer.isEmpty { return take(buffer.count) }
                if sawClose { return nil }
                _ = try fill(shouldStop: shouldStop)
            case .length:
                if remaining == 0 { return nil }
                if !buffer.isEmpty {
                    let piece = take(min(remaining, buffer.count))
                    remaining -= piece.count
                    return piece
                }
                guard try fill(shouldStop: shouldStop) else {
                    throw UpstreamError(
                        message: "the upstream closed the connection \(remaining) bytes before the body's end")
                }
            case .chunked:
                if chunked.isComplete { return nil }
                if !buffer.isEmpty {
                    var data: [UInt8] = []
                    do {
                        buffer.removeFirst(try chunked.decode(buffer[...], into: &data))
                    } catch let error as HTTPResponseParseError {
                        throw UpstreamError(message: "the upstream's response: \(error.message)")
                    } catch {
                        throw UpstreamError(message: "the upstream's response: \(error)")
                    }
                    if !data.isEmpty { return data }
                    continue
                }
                guard try fill(shouldStop: shouldStop) else {
                    throw UpstreamError(message: "the upstream closed the connection before the chunked body's end")
                }
            }
        }
    }

    private mutating func take(_ count: Int) -> [UInt8] {
        let piece = Array(buffer[..<count])
        buffer.removeFirst(count)
        return piece
    }
}
