// ReservedPort: a loopback port for tests of a server that is down, then comes back. The port is
// bound and never released while the test runs: connecting to it is refused until `open` makes
// the same socket listen, forwarding to a server on a port of its own. (Releasing the port and
// binding the server to it let another socket take it in between: "address already in use", about
// one run in four on a loaded machine.)

import ChatStream
import Foundation
import HTTPTestSupport
import Synchronization

@testable import ChatStreamClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port bound but not listening: connecting to it is refused (the server is down), and
/// no other socket can take it. ``open(forwardingTo:)`` brings it up without releasing it.
///
/// ```swift
/// let reserved = try ReservedPort()           // clients of reserved.port are refused
/// let server = try startServer()              // any free port
/// let proxy = try reserved.open(forwardingTo: server.port)
/// defer { proxy.stop(); server.stop() }       // clients of reserved.port reach the server
/// ```
final class ReservedPort: Sendable {
    let port: UInt16
    /// The bound socket, -1 once a proxy owns it.
    private let descriptor: Mutex<Int32>

    init() throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard fd >= 0, bound else {
            if fd >= 0 { close(fd) }
            throw ClientError(.invalidArgument, "cannot reserve a loopback port")
        }
        port = UInt16(bigEndian: address.sin_port)
        descriptor = Mutex(fd)
    }

    /// The port comes up: its socket listens, and a proxy forwards every connection to
    /// 127.0.0.1:`upstreamPort`. The proxy owns the socket from now on (stop it when done); once only.
    func open(forwardingTo upstreamPort: UInt16) throws -> FaultProxy {
        let fd = descriptor.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        guard fd >= 0 else { throw ClientError(.invalidArgument, "port \(port) was opened already") }
        return try FaultProxy(upstreamPort: upstreamPort, boundSocket: fd)
    }

    deinit {
        descriptor.withLock { fd in
            if fd >= 0 { close(fd) }
        }
    }
}
