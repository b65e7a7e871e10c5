// The socket spellings that differ between Glibc and Darwin, for the server tests' own clients
// (RawHTTPConnection, APITestClient) and the durability test's SIGKILL, side by side: the type of
// SOCK_STREAM (an enum on Glibc, an Int32 on Darwin) and how a send to a closed peer is kept from
// raising SIGPIPE (MSG_NOSIGNAL per send on Glibc, SO_NOSIGPIPE per socket on Darwin).

#if canImport(Glibc)
    import Glibc

    private let streamType = Int32(SOCK_STREAM.rawValue)
    private let sendFlags = Int32(MSG_NOSIGNAL)
    private let systemClose = Glibc.close
    private let systemSend = Glibc.send
    private let systemKill = Glibc.kill
#elseif canImport(Darwin)
    import Darwin

    private let streamType = SOCK_STREAM
    private let sendFlags: Int32 = 0  // SO_NOSIGPIPE is set on each socket instead
    private let systemClose = Darwin.close
    private let systemSend = Darwin.send
    private let systemKill = Darwin.kill
#endif

/// A new TCP socket of `family` (AF_INET or AF_INET6) whose sends never raise SIGPIPE; -1 on failure.
func testStreamSocket(_ family: Int32) -> Int32 {
    let fd = socket(family, streamType, 0)
    #if canImport(Darwin)
        var one: Int32 = 1
        if fd >= 0 { setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size)) }
    #endif
    return fd
}

/// send(2) of `count` bytes at `bytes`, without SIGPIPE: the bytes sent, or -1.
func testSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    systemSend(fd, bytes, count, sendFlags)
}

/// close(2).
func testClose(_ fd: Int32) {
    _ = systemClose(fd)
}

/// Sends SIGKILL to process `pid`.
func testKill(_ pid: Int32) {
    _ = systemKill(pid, SIGKILL)
}
