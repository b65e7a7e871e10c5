// Socket: the only place the server calls POSIX socket functions, for Glibc and Darwin alike.
//
// Blocking sockets with poll(2) for every wait, so each deadline is a poll timeout. Platform
// differences are kept to a few small branches: Darwin has no MSG_NOSIGNAL (a socket option,
// SO_NOSIGPIPE, does the same there) and no SOCK_CLOEXEC (fcntl sets it after socket(2)); the
// constants' Swift types differ (`SOCK_STREAM` is an enum on Glibc, an Int32 on Darwin).
// Sends time out (SO_SNDTIMEO set to what is left of the caller's deadline), so a peer that stops
// reading cannot hold a thread; the send buffer size bounds the bytes queued per connection.

#if canImport(Glibc)
    import Glibc

    private let streamType = Int32(SOCK_STREAM.rawValue)
    private let sendFlags = Int32(MSG_NOSIGNAL)
    private let shutBoth = Int32(SHUT_RDWR)
    private let shutWrite = Int32(SHUT_WR)
    private let tcpLevel = Int32(IPPROTO_TCP)
    private let ipv6Level = Int32(IPPROTO_IPV6)
    private func systemClose(_ fd: Int32) -> Int32 { Glibc.close(fd) }
    private func systemShutdown(_ fd: Int32, _ how: Int32) -> Int32 { Glibc.shutdown(fd, how) }
    private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(fd, backlog) }
    private func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t)
        -> Int32
    { Glibc.accept(fd, address, &length) }
    private func systemWrite(_ fd: Int32, _ byte: inout UInt8) -> Int { Glibc.write(fd, &byte, 1) }
    private let bytesReadableRequest = UInt(FIONREAD)
#elseif canImport(Darwin)
    import Darwin

    private let streamType = SOCK_STREAM
    private let sendFlags: Int32 = 0  // SO_NOSIGPIPE is set on each socket instead
    private let shutBoth = SHUT_RDWR
    private let shutWrite = SHUT_WR
    private let tcpLevel = IPPROTO_TCP
    private let ipv6Level = IPPROTO_IPV6
    private func systemClose(_ fd: Int32) -> Int32 { Darwin.close(fd) }
    private func systemShutdown(_ fd: Int32, _ how: Int32) -> Int32 { Darwin.shutdown(fd, how) }
    private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(fd, backlog) }
    private func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t)
        -> Int32
    { Darwin.accept(fd, address, &length) }
    private func systemWrite(_ fd: Int32, _ byte: inout UInt8) -> Int { Darwin.write(fd, &byte, 1) }
    // FIONREAD is a function-like macro (_IOR('f', 127, int)) that Swift does not import.
    private let bytesReadableRequest: UInt = 0x4004_667F
#endif

/// A blocking TCP socket descriptor. A value type: whoever owns the connection closes it once.
struct Socket: Sendable {
    /// The file descriptor.
    let fd: Int32

    /// The text of the current `errno`.
    static func errnoText(_ call: String) -> String {
        "\(call): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// A listening socket bound to `host:port` (numeric IPv4 or IPv6, or a name such as `localhost`).
    static func listen(host: String, port: UInt16, backlog: Int32 = 511) throws(HTTPServerError) -> Socket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
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
            let fd = socket(info.pointee.ai_family, streamType, 0)
            guard fd >= 0 else {
                lastError = .socket.with(message: errnoText("socket"))
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if info.pointee.ai_family == AF_INET6 { setOption(fd, ipv6Level, IPV6_V6ONLY, 1) }
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                lastError = .socket.with(message: errnoText("bind \(host):\(port)"))
                _ = systemClose(fd)
                continue
            }
            guard systemListen(fd, backlog) == 0 else {
                lastError = .socket.with(message: errnoText("listen"))
                _ = systemClose(fd)
                continue
            }
            return Socket(fd: fd)
        }
        throw lastError
    }

    /// Whether `host` names only loopback addresses (`127.0.0.0/8`, `::1`, `localhost`).
    static func isLoopback(host: String) -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            var storage = sockaddr_storage()
            memcpy(&storage, info.pointee.ai_addr, Int(info.pointee.ai_addrlen))
            let address = describe(storage).address
            guard address.hasPrefix("127.") || address == "::1" else { return false }
        }
        return true
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

    /// Accepts one connection: the socket, the peer's numeric address and its `address:port` text.
    /// Nil for a transient failure (errno tells which). The new socket's send buffer is capped at
    /// `sendBufferBytes` (the bytes queued for a peer that does not read).
    func accept(sendBufferBytes: Int) -> (socket: Socket, host: String, peer: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemAccept(fd, $0, &length) }
        }
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        Self.setOption(client, tcpLevel, TCP_NODELAY, 1)
        Self.setOption(client, SOL_SOCKET, SO_SNDBUF, Int32(clamping: sendBufferBytes))
        #if canImport(Darwin)
            Self.setOption(client, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
        let (address, port) = Self.describe(storage)
        let peer = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        return (Socket(fd: client), address, peer)
    }

    /// Waits until the socket is readable; false on timeout. A negative timeout waits forever.
    func waitReadable(timeoutMilliseconds: Int32) -> Bool {
        Self.waitReadable([fd], timeoutMilliseconds: timeoutMilliseconds) != nil
    }

    /// Waits until one of `fds` is readable (or has hung up); its index, nil on timeout or error.
    static func waitReadable(_ fds: [Int32], timeoutMilliseconds: Int32) -> Int? {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let result = poll(&entries, nfds_t(entries.count), timeoutMilliseconds)
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return nil }
            return entries.firstIndex { $0.revents != 0 }
        }
    }

    /// Sets `SO_RCVLOWAT`: a wait for readability returns only once `bytes` are buffered (or the
    /// peer closed, or the wait timed out), so a body trickled in small writes is read in large
    /// pieces rather than one system call per write.
    func setReceiveLowWatermark(_ bytes: Int) {
        var value = Int32(clamping: max(1, bytes))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The bytes buffered for reading now (`FIONREAD`); 0 when unknown.
    var bytesAvailable: Int {
        var count: Int32 = 0
        return ioctl(fd, bytesReadableRequest, &count) == 0 ? Int(count) : 0
    }

    /// Reads up to `buffer.count` bytes; 0 means the peer closed its side. Throws on a connection error.
    /// `withoutWaiting` returns what is buffered at once (a blocking read would wait for the low
    /// watermark, see ``setReceiveLowWatermark(_:)``).
    func receive(into buffer: inout [UInt8], withoutWaiting: Bool = false) throws(HTTPServerError) -> Int {
        let flags = withoutWaiting ? Int32(MSG_DONTWAIT) : 0
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, flags) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw HTTPServerError.connectionClosed.with(message: Self.errnoText("recv"))
        }
    }

    /// Writes all of `bytes` before `deadline` (nil: no deadline), blocking as needed; throws
    /// `connectionClosed` when the peer is gone or has not taken the bytes in time.
    func sendAll(_ bytes: some Collection<UInt8>, deadline: ContinuousClock.Instant? = nil) throws(HTTPServerError) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            if let deadline {
                let left = deadline - .now
                guard left > .zero else {
                    throw HTTPServerError.connectionClosed.with(message: "send timed out: the peer does not read")
                }
                setSendTimeout(left)
            }
            let sent = array.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, sendFlags)
            }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw HTTPServerError.connectionClosed.with(message: Self.errnoText("send"))
            }
            offset += sent
        }
    }

    /// Sends what the kernel takes now, without waiting: the bytes taken (0 when it would block),
    /// nil when the connection failed.
    func sendNow(_ bytes: ArraySlice<UInt8>) -> Int? {
        while true {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, sendFlags | Int32(MSG_DONTWAIT)) }
            if sent >= 0 { return sent }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : nil
        }
    }

    /// Reads and drops what the peer sent, without waiting: false when the peer closed its side or
    /// the connection failed.
    func discardInput() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 512)
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { return true }
            if count == 0 { return false }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK
        }
    }

    /// Sets SO_SNDTIMEO: a blocked send returns EAGAIN after `timeout` without progress.
    private func setSendTimeout(_ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval()
        value.tv_sec = .init(seconds)
        value.tv_usec = .init(max(1, attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Shuts both directions: a blocked `recv` returns 0 and later sends fail. Safe from any thread.
    func shutdown() {
        _ = systemShutdown(fd, shutBoth)
    }

    /// Closes after sending everything: shuts the write side, then reads and drops what the peer still
    /// sends for up to `drainMilliseconds`, so an unread request does not turn the close into a reset
    /// that could destroy the response in flight.
    func closeGracefully(drainMilliseconds: Int32 = 250) {
        _ = systemShutdown(fd, shutWrite)
        var scratch = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while total < 1 << 20, waitReadable(timeoutMilliseconds: drainMilliseconds),
            let count = try? receive(into: &scratch), count > 0
        {
            total += count
        }
        close()
    }

    /// Ends the write side (the peer reads the end of the stream) without waiting.
    func shutdownWriting() {
        _ = systemShutdown(fd, shutWrite)
    }

    /// Closes the descriptor.
    func close() {
        _ = systemClose(fd)
    }

    /// Makes the next `close` (or a shutdown) reset the connection rather than end it cleanly.
    func setResetOnClose() {
        var value = linger()
        value.l_onoff = 1
        value.l_linger = 0
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    /// Drops the connection at once: `SO_LINGER` 0 makes `close` send a reset rather than a clean FIN.
    func resetAndClose() {
        setResetOnClose()
        close()
    }

    // MARK: - Wake pipe

    /// A close-on-exec pipe (read end, write end), for waking a thread blocked in poll.
    static func makePipe() throws(HTTPServerError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw HTTPServerError.socket.with(message: errnoText("pipe")) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Writes one byte to a pipe's write end.
    static func signal(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = systemWrite(fd, &byte)
    }

    /// Reads everything waiting in a non-blocking pipe's read end; the bytes read.
    static func drainPipe(_ fd: Int32) -> Int {
        var scratch = [UInt8](repeating: 0, count: 64)
        var total = 0
        while true {
            let count = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                total += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            return total
        }
    }

    /// Makes a socket given back after a hand-off ready for HTTPConnection again: blocking (its
    /// sends wait), and readable from the first byte (`SO_RCVLOWAT` 1).
    func prepareForRequests() {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        setReceiveLowWatermark(1)
    }

    /// Makes reads and writes of `fd` return at once rather than wait (`O_NONBLOCK`).
    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Closes a raw descriptor (a pipe end).
    static func close(_ fd: Int32) {
        _ = systemClose(fd)
    }

    /// Whether `errno` says the process or system ran out of descriptors or memory (back off a little).
    static var isResourceExhaustion: Bool {
        errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM
    }

    /// The most descriptors this process may open (RLIMIT_NOFILE's soft limit).
    static var descriptorLimit: Int {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    // MARK: - Helpers

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
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
