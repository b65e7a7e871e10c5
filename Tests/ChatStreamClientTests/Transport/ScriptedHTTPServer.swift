// ScriptedHTTPServer: a loopback TCP server that answers each connection with exactly the bytes a
// test writes (any framing, malformed heads, a close at any point), for PlainHTTPTransportTests.
// The package's own HTTPServer only writes valid responses, which is not enough to test a parser.

import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback server on a free port; each accepted connection runs `script` on a thread of its own
/// once the request (head and Content-Length body) has been read.
///
/// ```swift
/// let server = try ScriptedHTTPServer { connection in
///     connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
/// }
/// defer { server.stop() }
/// ```
final class ScriptedHTTPServer: Sendable {
    let port: Int
    /// Whether the server listens on `::1` (else `127.0.0.1`).
    let ipv6: Bool
    private let listener: Int32
    /// Connections accepted so far.
    let accepted = Shared(0)
    /// The requests read so far, in order.
    let requests = Shared<[String]>([])

    /// Whether this machine has an IPv6 loopback to listen on.
    static let hasIPv6Loopback: Bool = {
        guard let server = try? ScriptedHTTPServer(ipv6: true, script: { _ in }) else { return false }
        server.stop()
        return true
    }()

    /// With `readsRequest` false the script runs at once, before any of the request is read (an
    /// early answer, as a server refusing a body too large gives).
    init(
        ipv6: Bool = false, readsRequest: Bool = true, script: @escaping @Sendable (ScriptedConnection) throws -> Void
    ) throws {
        self.ipv6 = ipv6
        #if canImport(Glibc)
            let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let rawPort = withUnsafePointer(to: &storage) { pointer -> UInt16 in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        port = Int(UInt16(bigEndian: rawPort))
        listener = fd
        let accepted = accepted
        let requests = requests
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                accepted.update { $0 += 1 }
                Thread.detachNewThread {
                    let connection = ScriptedConnection(client)
                    if readsRequest { requests.update { $0.append(connection.readRequest()) } }
                    try? script(connection)
                    connection.close()
                }
            }
        }
    }

    /// The server's URL for `path`.
    func url(_ path: String = "/") -> URL {
        URL(string: "http://\(ipv6 ? "[::1]" : "127.0.0.1"):\(port)\(path)")!
    }

    /// Stops accepting (connections in progress finish their scripts).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// One accepted connection: what the test writes to the client.
final class ScriptedConnection: @unchecked Sendable {
    private var fd: Int32

    init(_ fd: Int32) {
        self.fd = fd
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Reads the request head and its Content-Length body; returns them as text.
    func readRequest() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var expected: Int?
        while expected.map({ bytes.count < $0 }) ?? true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            bytes += buffer[..<count]
            if expected == nil, let end = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                expected = end + (length ?? 0)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `bytes` (all of them); false when the client has gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            #if canImport(Glibc)
                let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #else
                let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            #endif
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Waits until the client closes its end (reading and dropping anything it sends); true when
    /// it did within `timeout`.
    func waitForClientClose(timeout: Duration = .seconds(60)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 1024)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { return false }
            guard poller.revents != 0 else { continue }
            if recv(fd, &buffer, buffer.count, 0) <= 0 { return true }
        }
        return false
    }

    /// Closes the connection (done after the script anyway).
    func close() {
        guard fd >= 0 else { return }
        #if canImport(Glibc)
            Glibc.close(fd)
        #else
            Darwin.close(fd)
        #endif
        fd = -1
    }
}
