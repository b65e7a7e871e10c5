// Socket.connect: the outgoing side, for the requests a model agent sends its upstream.
// Glibc and Darwin side by side, as in Socket.swift; the connect waits at most its timeout
// (non-blocking connect, then poll for writability).

#if canImport(Glibc)
    import Glibc

    private let connectStreamType = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
    import Darwin

    private let connectStreamType = SOCK_STREAM
#endif

extension Socket {
    /// A socket connected to `host:port` (a name or a numeric address), within `timeout`.
    static func connect(host: String, port: UInt16, timeout: Duration) throws(HTTPServerError) -> Socket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = connectStreamType
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw HTTPServerError.socket.with(
                message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address for \(host)"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = errnoText("socket")
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            #if canImport(Darwin)
                var one: Int32 = 1
                setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let flags = fcntl(fd, F_GETFL, 0)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var result = systemConnect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen)
            if result != 0 && errno == EINPROGRESS {
                var entries = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
                let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + 1)
                if poll(&entries, 1, milliseconds) == 1 {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    result = error == 0 ? 0 : -1
                    if error != 0 { errno = error }
                } else {
                    errno = ETIMEDOUT
                }
            }
            guard result == 0 else {
                lastError = errnoText("connect to \(host):\(port)")
                Socket(fd: fd).close()
                continue
            }
            _ = fcntl(fd, F_SETFL, flags)
            return Socket(fd: fd)
        }
        throw HTTPServerError.socket.with(message: lastError)
    }
}

#if canImport(Glibc)
    private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
        Glibc.connect(fd, address, length)
    }
#elseif canImport(Darwin)
    private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
        Darwin.connect(fd, address, length)
    }
#endif
