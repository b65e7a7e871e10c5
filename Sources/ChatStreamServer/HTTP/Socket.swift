// Socket: thin wrappers over the POSIX calls the server needs (blocking sockets, poll for timeouts).
//
// Sends use MSG_NOSIGNAL, so a peer that went away gives EPIPE (an error) rather than SIGPIPE.
import Glibc

/// A blocking TCP socket descriptor. A value type: whoever owns the connection closes it once.
struct Socket: Sendable {
    /// The file descriptor.
    let fd: Int32

    /// The text of the current `errno`.
    static func errnoText(_ call: String) -> String {
        "\(call): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// A listening socket bound to `host:port` (numeric IPv4 or IPv6, or a name such as `localhost`).
    static func listen(host: String, port: UInt16, backlog: Int32 = 128) throws(HTTPServerError) -> Socket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw HTTPServerError.addressResolution.with(
                message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = HTTPServerError.addressResolution
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = .socket.with(message: errnoText("socket"))
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if info.pointee.ai_family == AF_INET6 {
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                lastError = .socket.with(message: errnoText("bind \(host):\(port)"))
                Glibc.close(fd)
                continue
            }
            guard Glibc.listen(fd, backlog) == 0 else {
                lastError = .socket.with(message: errnoText("listen"))
                Glibc.close(fd)
                continue
            }
            return Socket(fd: fd)
        }
        throw lastError
    }

    /// The local port the socket is bound to.
    var localPort: UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return 0 }
        return Self.describe(storage).port
    }

    /// Accepts one connection: the socket and the peer's address text. Nil for a transient failure.
    func accept() -> (Socket, String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.accept(fd, $0, &length)
            }
        }
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let (address, port) = Self.describe(storage)
        return (Socket(fd: client), address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)")
    }

    /// Waits until the socket is readable; false on timeout. A negative timeout waits forever.
    func waitReadable(timeoutMilliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, timeoutMilliseconds)
            if result < 0 && errno == EINTR { continue }
            return result != 0
        }
    }

    /// Reads up to `buffer.count` bytes; 0 means the peer closed its side. Throws on a connection error.
    func receive(into buffer: inout [UInt8]) throws(HTTPServerError) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw HTTPServerError.connectionClosed.with(message: Self.errnoText("recv"))
        }
    }

    /// Writes all of `bytes`, blocking as needed; throws `connectionClosed` when the peer is gone.
    func sendAll(_ bytes: some Collection<UInt8>) throws(HTTPServerError) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let sent = array.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw HTTPServerError.connectionClosed.with(message: Self.errnoText("send"))
            }
            offset += sent
        }
    }

    /// Shuts both directions: a blocked `recv` returns 0 and later sends fail. Safe from any thread.
    func shutdown() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Closes after sending everything: shuts the write side, then reads and drops what the peer still
    /// sends for up to `drainMilliseconds`, so an unread request does not turn the close into a reset
    /// that could destroy the response in flight.
    func closeGracefully(drainMilliseconds: Int32 = 250) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while total < 1 << 20, waitReadable(timeoutMilliseconds: drainMilliseconds),
            let count = try? receive(into: &scratch), count > 0
        {
            total += count
        }
        close()
    }

    /// Closes the descriptor.
    func close() {
        _ = Glibc.close(fd)
    }

    /// Drops the connection at once: `SO_LINGER` 0 makes `close` send a reset rather than a clean FIN.
    func resetAndClose() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    /// A NUL-terminated C string buffer as a String.
    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Numeric address and port of a socket address.
    private static func describe(_ storage: sockaddr_storage) -> (address: String, port: UInt16) {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var address = pointer.pointee.sin_addr
                    inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                    return (Self.string(text), UInt16(bigEndian: pointer.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var address = pointer.pointee.sin6_addr
                    inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                    return (Self.string(text), UInt16(bigEndian: pointer.pointee.sin6_port))
                }
            }
        default:
            return ("?", 0)
        }
    }
}
