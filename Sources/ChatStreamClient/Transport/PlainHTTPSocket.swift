// PlainHTTPSocket: the POSIX socket calls of PlainHTTPTransport, Glibc on Linux and Darwin on Apple
// platforms side by side where they differ (close-on-exec, SIGPIPE, the poll constants' types).
//
// One connection per exchange: getaddrinfo for the host (IPv4 and IPv6, each address in turn), a
// non-blocking connect finished with poll, then blocking-free sends and receives, each preceded
// by a poll on the socket and on the exchange's wake pipe, so that cancellation (a byte written to
// the pipe) ends any wait at once and a silent server ends it at the idle deadline.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connected, non-blocking TCP socket and the wake pipe its waits also watch.
final class PlainHTTPSocket {
    /// What a wait ended with.
    enum Wait {
        case ready
        /// Waiting to write, the socket could not take more but the server has spoken: an early
        /// answer (a 413 before the whole request body) that the server wants read.
        case answered
        case woken
        case timedOut
    }

    /// The read and write ends of the pipe that wakes the exchange's thread (closed in `deinit`).
    let wakeRead: Int32
    let wakeWrite: Int32
    /// The connected socket, or -1.
    private(set) var descriptor: Int32 = -1

    /// A socket with a wake pipe and no connection yet.
    ///
    /// - Throws: ``TransportError`` `.connectionFailed` when no pipe can be made.
    init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw TransportError(.connectionFailed, "cannot make a pipe: \(Self.lastError())")
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        closeSocket()
        close(wakeRead)
        close(wakeWrite)
    }

    /// Wakes a thread waiting in ``wait(forWriting:until:)`` (any thread; never blocks).
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Closes the socket (the exchange's thread, when it is done with it).
    func closeSocket() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    /// Connects to `host`:`port`, trying each address getaddrinfo gives in turn, each until
    /// `deadline`; returns false when woken first.
    ///
    /// - Throws: ``TransportError`` `.connectionFailed` (naming the host and the last error) or `.timedOut`.
    func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        // No AI_ADDRCONFIG: it hides `::1` on a host whose only IPv6 address is the loopback.
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw TransportError(.connectionFailed, "cannot resolve host \"\(host)\": \(reason)")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = Self.makeSocket(family: address.pointee.ai_family)
            guard fd >= 0 else {
                lastError = Self.lastError()
                continue
            }
            descriptor = fd
            if posixConnect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else {
                lastError = Self.lastError()
                closeSocket()
                continue
            }
            switch wait(forWriting: true, until: deadline) {
            case .answered:
                // Not connected yet, so nothing to read: the connect's result decides.
                fallthrough
            case .ready:
                var failure: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length)
                if failure == 0 { return true }
                lastError = String(cString: strerror(failure))
                closeSocket()
            case .woken:
                closeSocket()
                return false
            case .timedOut:
                closeSocket()
                throw TransportError(.timedOut, "no connection to \(host) port \(port) before the idle timeout")
            }
        }
        throw TransportError(.connectionFailed, "cannot connect to \(host) port \(port): \(lastError)")
    }

    /// A non-blocking, close-on-exec stream socket of `family` that raises no SIGPIPE, or -1.
    private static func makeSocket(family: Int32) -> Int32 {
        #if canImport(Glibc)
            let fd = socket(
                family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return -1 }
        #else
            let fd = socket(family, SOCK_STREAM, 0)
            guard fd >= 0 else { return -1 }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var noSignal: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #endif
        // Small writes (the request) go at once; the reply is what is waited for.
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Waits until the socket is readable (or writable), the pipe is written to, or `deadline`.
    func wait(forWriting: Bool, until deadline: ContinuousClock.Instant?) -> Wait {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - .now
                if left <= .zero { return .timedOut }
                let (seconds, attoseconds) = left.components
                timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var fds = [
                pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT | POLLIN : POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            // A closed socket (-1) is ignored by poll.
            let count = poll(&fds, 2, timeout)
            if count < 0 {
                if errno == EINTR { continue }
                return .woken
            }
            if fds[1].revents != 0 {
                drainWakes()
                return .woken
            }
            let events = Int32(fds[0].revents)
            if forWriting, events & Int32(POLLOUT) == 0, events & Int32(POLLIN) != 0 { return .answered }
            if events != 0 { return .ready }
            if count == 0, let deadline, deadline <= .now { return .timedOut }
        }
    }

    /// Waits for the pipe alone (receiving paused), until woken.
    func waitForWake() {
        var fd = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        while poll(&fd, 1, -1) < 0 && errno == EINTR {}
        drainWakes()
    }

    private func drainWakes() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &bytes, bytes.count) > 0 {}
    }

    /// Sends what it can of `bytes`: the count sent, 0 when the socket would block.
    ///
    /// - Throws: ``TransportError`` `.connectionLost` naming the error.
    func send(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        #if canImport(Glibc)
            let sent = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        #else
            let sent = Darwin.send(descriptor, bytes.baseAddress, bytes.count, 0)
        #endif
        if sent >= 0 { return sent }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
        throw TransportError(.connectionLost, "cannot send the request: \(Self.lastError())")
    }

    /// What a receive gave.
    enum Received {
        case bytes(Int)
        case wouldBlock
        case closed
    }

    /// Receives into `buffer`.
    ///
    /// - Throws: ``TransportError`` `.connectionLost` naming the error (a reset, for example).
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws -> Received {
        let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .closed }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock }
        throw TransportError(.connectionLost, "the connection broke: \(Self.lastError())")
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}

/// `connect(2)` under a name that does not clash with ``PlainHTTPSocket/connect(host:port:deadline:)``.
private func posixConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.connect(fd, address, length)
    #else
        Darwin.connect(fd, address, length)
    #endif
}
