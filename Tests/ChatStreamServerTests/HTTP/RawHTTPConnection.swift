// RawHTTPConnection: a blocking TCP client for tests that must control the exact bytes on the wire
// (pipelining, malformed requests, byte-at-a-time bodies) and read responses back.

import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response as read off the wire by ``RawHTTPConnection``.
struct RawHTTPResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Errors of the raw test client.
struct RawHTTPError: Error, CustomStringConvertible {
    var description: String
}

/// A test client on a plain blocking socket with a receive timeout.
final class RawHTTPConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host` (a numeric IPv4 or IPv6 address) at `port`, from the IPv4 `source` address when
    /// given (another loopback address such as `127.0.0.2`); reads time out after `timeout` seconds.
    init(port: UInt16, host: String = "127.0.0.1", source: String? = nil, timeout: Int = 10) throws {
        let v6 = host.contains(":")
        fd = testStreamSocket(v6 ? AF_INET6 : AF_INET)
        guard fd >= 0 else { throw RawHTTPError(description: "socket failed") }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard bound == 0 else {
                    testClose(fd)
                    throw RawHTTPError(description: "bind \(source) failed: errno \(errno)")
                }
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            testClose(fd)
            throw RawHTTPError(description: "connect failed: errno \(errno)")
        }
    }

    deinit { testClose(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                testSend(fd, $0.baseAddress! + offset, bytes.count - offset)
            }
            guard sent > 0 else { throw RawHTTPError(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false at EOF. Throws on timeout or error.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw RawHTTPError(description: "recv failed (timeout?): errno \(errno)")
        }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw RawHTTPError(description: "EOF inside a line") }
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw RawHTTPError(description: "EOF inside a body") }
        }
        defer { buffer.removeSubrange(..<count) }
        return Array(buffer[..<count])
    }

    /// Reads one response (interim 1xx responses are returned as they are). `head`: no body expected.
    func readResponse(head: Bool = false) throws -> RawHTTPResponse {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw RawHTTPError(description: "bad status line \(statusLine)")
        }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            let colon = line.firstIndex(of: ":")!
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = RawHTTPResponse(status: status, headers: headers, body: [])
        if head || status < 200 || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding") == "chunked" {
            while true {
                let size = Int(try readLine().split(separator: ";")[0], radix: 16)!
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                response.body += try readBytes(size)
                _ = try readLine()
            }
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try readBytes(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads one chunk of a chunked body whose head ``readResponse(head:)`` read: its text, or ""
    /// for the last chunk (its trailer section read too).
    func readChunk() throws -> String {
        guard let size = Int(try readLine().split(separator: ";")[0], radix: 16) else {
            throw RawHTTPError(description: "bad chunk size line")
        }
        if size == 0 {
            while try !readLine().isEmpty {}
            return ""
        }
        let bytes = try readBytes(size)
        _ = try readLine()
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the server closed the connection (EOF, or a reset) with no more bytes pending.
    func isClosedByPeer() throws -> Bool {
        buffer.isEmpty ? try !fill() : false
    }
}
