// UpstreamHTTP: the small HTTP/1.1 client a model agent sends its upstream requests with, on the
// server's own sockets (no extra dependency, one blocking thread per reply as the demo agent has).
//
// One request per connection (`Connection: close`). The response head is read whole (at most
// 64 KiB); the body is handed out as it arrives, de-chunked for `Transfer-Encoding: chunked`,
// counted for `Content-Length`, or read to the close. Every wait is a poll of at most 250 ms, so
// the reader notices a stopped reply quickly and closes the connection, and no wait outlasts the
// agent's timeout. `https://` goes through libcurl instead (UpstreamCurl.swift, Linux), whose body
// is read the same way (UpstreamBodyReading).

import ChatStream
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
            body.setFraming(headers: headers)
            return UpstreamResponse(status: status, headers: headers, body: body)
        } catch {
            socket.close()
            throw error
        }
    }
}

/// The body of an upstream response over our own socket (plain http).
struct UpstreamBody: UpstreamBodyReading {
    private enum Framing: Sendable {
        case untilClose
        case length(Int)
        /// Chunked: the bytes left of the current chunk (nil: a size line comes next).
        case chunked(left: Int?)
        case ended
    }

    let socket: Socket
    let timeout: Duration
    /// Bytes read but not yet handed out.
    private var buffer: [UInt8] = []
    private var framing = Framing.untilClose
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

    mutating func readHead(shouldStop: () -> Bool) throws(UpstreamError) -> (Int, [(name: String, value: String)]) {
        let end: Int
        while true {
            if let index = Self.find([13, 10, 13, 10], in: buffer) {
                end = index
                break
            }
            guard buffer.count < 64 * 1024 else {
                throw UpstreamError(message: "the upstream's response head is too long")
            }
            guard try fill(shouldStop: shouldStop) else {
                throw UpstreamError(message: "the upstream closed the connection before answering")
            }
        }
        let text = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw UpstreamError(message: "the upstream did not answer HTTP/1.1")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                line[..<colon].lowercased(),
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        return (status, headers)
    }

    mutating func setFraming(headers: [(name: String, value: String)]) {
        if headers.contains(where: { $0.name == "transfer-encoding" && $0.value.lowercased().contains("chunked") }) {
            framing = .chunked(left: nil)
        } else if let length = headers.first(where: { $0.name == "content-length" }).flatMap({ Int($0.value) }) {
            framing = length == 0 ? .ended : .length(length)
        }
    }

    mutating func next(shouldStop: () -> Bool) throws(UpstreamError) -> [UInt8]? {
        while true {
            switch framing {
            case .ended:
                return nil
            case .untilClose:
                if !buffer.isEmpty { return take(buffer.count) }
                if sawClose { return nil }
                _ = try fill(shouldStop: shouldStop)
            case .length(let left):
                if !buffer.isEmpty {
                    let piece = take(min(left, buffer.count))
                    framing = left - piece.count == 0 ? .ended : .length(left - piece.count)
                    return piece
                }
                guard try fill(shouldStop: shouldStop) else {
                    throw UpstreamError(
                        message: "the upstream closed the connection \(left) bytes before the body's end")
                }
            case .chunked(let left?):
                if left == 0 {
                    // The CRLF after a chunk's data.
                    if buffer.count >= 2 {
                        buffer.removeFirst(2)
                        framing = .chunked(left: nil)
                        continue
                    }
                } else if !buffer.isEmpty {
                    let piece = take(min(left, buffer.count))
                    framing = .chunked(left: left - piece.count)
                    return piece
                }
                guard try fill(shouldStop: shouldStop) else {
                    throw UpstreamError(message: "the upstream closed the connection in the middle of a chunk")
                }
            case .chunked(nil):
                if let lineEnd = Self.find([13, 10], in: buffer) {
                    let line = String(decoding: buffer[..<lineEnd], as: UTF8.self)
                    buffer.removeFirst(lineEnd + 2)
                    let digits = line.split(separator: ";").first.map(String.init)?.trimmingCharacters(in: .whitespaces)
                    guard let digits, let size = Int(digits, radix: 16), size >= 0 else {
                        throw UpstreamError(message: "the upstream sent a bad chunk size line \"\(line.prefix(40))\"")
                    }
                    framing = size == 0 ? .ended : .chunked(left: size)
                    continue
                }
                guard buffer.count < 1024 else {
                    throw UpstreamError(message: "the upstream's chunk size line is too long")
                }
                guard try fill(shouldStop: shouldStop) else {
                    throw UpstreamError(message: "the upstream closed the connection before the last chunk")
                }
            }
        }
    }

    private mutating func take(_ count: Int) -> [UInt8] {
        let piece = Array(buffer[..<count])
        buffer.removeFirst(count)
        return piece
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<start + needle.count]) == needle { return start }
        }
        return nil
    }
}
