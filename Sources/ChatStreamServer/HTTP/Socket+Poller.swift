// SocketPoller: readiness of many descriptors from one thread, for the live streams handed off the
// connection threads (LiveStreamWriter). epoll on Linux and kqueue on Apple platforms, side by side
// as in Socket.swift; both level-triggered, so a descriptor left unread or unwritten reports again.
// Every descriptor is watched for reading (a peer's close or reset shows there) and, while bytes
// wait for it, for writing.

#if canImport(Glibc)
    internal import CEpoll
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one wait found about one descriptor.
struct SocketReadiness: Sendable {
    var fd: Int32
    var readable: Bool
    var writable: Bool
    /// The peer hung up or the socket has an error (reading tells which).
    var failed: Bool
}

/// Waits on many descriptors at once. Used by one thread at a time (created by whoever starts that
/// thread, so creation errors surface there), hence `@unchecked Sendable`.
final class SocketPoller: @unchecked Sendable {
    private let queue: Int32

    /// A poller with no descriptors.
    init() throws(HTTPServerError) {
        #if canImport(Glibc)
            queue = epoll_create1(Int32(EPOLL_CLOEXEC))
        #elseif canImport(Darwin)
            queue = kqueue()
        #endif
        guard queue >= 0 else { throw HTTPServerError.socket.with(message: Socket.errnoText("poller")) }
    }

    deinit { Socket.close(queue) }

    /// Starts watching `fd` for reading (unless not `readable`: then only a failure or hang-up
    /// shows) and for writing when `writable`.
    func add(_ fd: Int32, writable: Bool = false, readable: Bool = true) {
        #if canImport(Glibc)
            var event = epoll_event()
            event.events = Self.mask(writable: writable, readable: readable)
            event.data.fd = fd
            _ = epoll_ctl(queue, EPOLL_CTL_ADD, fd, &event)
        #elseif canImport(Darwin)
            change(fd, filter: Int16(EVFILT_READ), flags: UInt16(EV_ADD | (readable ? EV_ENABLE : EV_DISABLE)))
            change(fd, filter: Int16(EVFILT_WRITE), flags: UInt16(EV_ADD | (writable ? EV_ENABLE : EV_DISABLE)))
        #endif
    }

    /// Watches `fd` for writing too, or no longer (`readable` as it was added).
    func setWritable(_ fd: Int32, _ writable: Bool, readable: Bool = true) {
        #if canImport(Glibc)
            var event = epoll_event()
            event.events = Self.mask(writable: writable, readable: readable)
            event.data.fd = fd
            _ = epoll_ctl(queue, EPOLL_CTL_MOD, fd, &event)
        #elseif canImport(Darwin)
            change(fd, filter: Int16(EVFILT_WRITE), flags: UInt16(writable ? EV_ENABLE : EV_DISABLE))
        #endif
    }

    /// Stops watching `fd` (call before closing it).
    func remove(_ fd: Int32) {
        #if canImport(Glibc)
            var event = epoll_event()
            _ = epoll_ctl(queue, EPOLL_CTL_DEL, fd, &event)
        #elseif canImport(Darwin)
            change(fd, filter: Int16(EVFILT_READ), flags: UInt16(EV_DELETE))
            change(fd, filter: Int16(EVFILT_WRITE), flags: UInt16(EV_DELETE))
        #endif
    }

    /// Waits up to `timeoutMilliseconds` (negative: no limit) for any watched descriptor, and
    /// returns what is ready (empty on timeout or interruption), at most `capacity` entries.
    func wait(timeoutMilliseconds: Int32, capacity: Int = 256) -> [SocketReadiness] {
        #if canImport(Glibc)
            var events = [epoll_event](repeating: epoll_event(), count: capacity)
            let count = epoll_wait(queue, &events, Int32(capacity), timeoutMilliseconds)
            guard count > 0 else { return [] }
            let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
            let failed = EPOLLERR.rawValue | EPOLLHUP.rawValue
            var ready: [SocketReadiness] = []
            for event in events.prefix(Int(count)) {
                let mask: UInt32 = event.events
                ready.append(
                    SocketReadiness(
                        fd: event.data.fd, readable: mask & readable != 0, writable: mask & EPOLLOUT.rawValue != 0,
                        failed: mask & failed != 0))
            }
            return ready
        #elseif canImport(Darwin)
            var events = [kevent](repeating: kevent(), count: capacity)
            var limit = timespec(
                tv_sec: Int(timeoutMilliseconds / 1000), tv_nsec: Int(timeoutMilliseconds % 1000) * 1_000_000)
            let count = withUnsafePointer(to: &limit) { pointer in
                kevent(queue, nil, 0, &events, Int32(capacity), timeoutMilliseconds < 0 ? nil : pointer)
            }
            guard count > 0 else { return [] }
            return events.prefix(Int(count)).map { event in
                SocketReadiness(
                    fd: Int32(event.ident), readable: event.filter == Int16(EVFILT_READ),
                    writable: event.filter == Int16(EVFILT_WRITE),
                    failed: event.flags & UInt16(EV_ERROR) != 0
                        || (event.filter == Int16(EVFILT_READ) && event.flags & UInt16(EV_EOF) != 0))
            }
        #endif
    }

    #if canImport(Glibc)
        private static func mask(writable: Bool, readable: Bool) -> UInt32 {
            (readable ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
        }
    #elseif canImport(Darwin)
        private func change(_ fd: Int32, filter: Int16, flags: UInt16) {
            var event = kevent(ident: UInt(fd), filter: filter, flags: flags, fflags: 0, data: 0, udata: nil)
            _ = kevent(queue, &event, 1, nil, 0, nil)
        }
    #endif
}
