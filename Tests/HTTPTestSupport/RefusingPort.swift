// RefusingPort: a loopback port that refuses connections, for the transports' "connection
// refused" cases. A server started and stopped leaves its port free, and a test running beside it
// may bind a server there before the connection is tried (seen once in a full run: the refused
// connection was answered). Here a socket stays bound to the port without listening, so a
// connection is refused and no other socket can take the port until the value goes.

import Foundation

#if canImport(Glibc)
    import Glibc
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocket = SOCK_STREAM
#endif

/// A loopback port bound and not listening while this value lives.
package final class RefusingPort {
    /// The port (on 127.0.0.1).
    package let port: UInt16
    private let descriptor: Int32

    /// Binds a socket to a free loopback port.
    package init() throws {
        let descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw RefusingPortError(what: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw RefusingPortError(what: "bind", code: code)
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }
}

/// A socket call failed while making a ``RefusingPort``.
package struct RefusingPortError: Error, CustomStringConvertible {
    let what: String
    let code: Int32
    package var description: String { "\(what): \(String(cString: strerror(code)))" }
}
