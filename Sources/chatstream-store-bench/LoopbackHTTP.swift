// LoopbackHTTP: one blocking HTTP/1.1 exchange with `Connection: close` over a loopback socket,
// read to the end: the bench times whole answers, so it needs nothing more.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum LoopbackHTTP {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends `method path` (with `body` as JSON, if any) to 127.0.0.1:`port`; returns the status and
    /// the bytes after the head (the body as sent: chunked bodies keep their framing).
    static func exchange(
        port: UInt16, method: String, path: String, device: String, body: String? = nil
    ) throws -> (status: Int, body: [UInt8]) {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Device-Id: \(device)\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to port \(port) failed") }
        let bytes = Array(request.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard sent > 0 else { throw Failure(description: "send failed") }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        // "HTTP/1.1 200 ..." : the status is the three digits after the first space.
        guard received.count >= 12, let status = Int(String(decoding: received[9..<12], as: UTF8.self)) else {
            throw Failure(description: "no status line in \(received.count) bytes")
        }
        let separator = Array("\r\n\r\n".utf8)
        var headEnd = received.count
        for index in 0..<max(0, received.count - 3) where Array(received[index..<index + 4]) == separator {
            headEnd = index + 4
            break
        }
        return (status, Array(received[headEnd...]))
    }
}
