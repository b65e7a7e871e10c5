// APITestClient: a blocking loopback HTTP client for the ChatAPIServer tests, plus a server
// fixture. Each request uses its own connection with `Connection: close` and reads to EOF, so a
// dropped connection shows up as a body without the chunked terminator (`complete == false`).

import ChatStream
import ChatStreamServer
import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response as read from the socket.
struct APIResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    /// Whether the body ended properly (the last chunk arrived, or the Content-Length was met).
    var complete: Bool

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONTree { (try? JSONTree(parsing: body)) ?? .null }
    var errorCode: String? { json["error"]?["code"]?.stringValue }

    /// The UI message stream chunks (`data:` JSON), and whether `[DONE]` ended it.
    var streamChunks: (chunks: [JSONTree], done: Bool) {
        var chunks: [JSONTree] = []
        var done = false
        for event in text.components(separatedBy: "\n\n") {
            // An event may start with its `id:` line (PROTOCOLS.md section 8).
            guard let line = event.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) else { continue }
            let data = String(line.dropFirst(6))
            if data == "[DONE]" {
                done = true
            } else if let value = try? JSONTree(parsing: data) {
                chunks.append(value)
            }
        }
        return (chunks, done)
    }
}

struct APITestError: Error, CustomStringConvertible {
    var description: String
}

/// A running ChatAPIServer on a free loopback port, with request helpers.
final class APIFixture {
    let server: ChatAPIServer
    let agent: String

    init(
        extensions: Bool = true, dataFile: String? = nil, agent: String = "demo-agent", faultHeader: Bool = true,
        jwtSecret: String? = nil, configure: (inout ChatAPIServer.Configuration) -> Void = { _ in }
    ) throws {
        var configuration = ChatAPIServer.Configuration()
        configuration.jwtSecret = jwtSecret
        configuration.allowsFaultHeader = faultHeader
        configuration.port = 0
        configuration.replyDelay = .zero
        configuration.extensionsEnabled = extensions
        configuration.dataFile = dataFile
        configuration.agentId = agent
        configure(&configuration)
        server = ChatAPIServer(configuration: configuration)
        self.agent = agent
        try server.start()
    }

    deinit { server.stop() }

    /// Sends one request; `body` is sent as is.
    func request(
        _ method: String, _ path: String, device: String? = "device-a", token: String? = nil,
        headers: [(String, String)] = [], body: String? = nil
    ) throws -> APIResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let device { head += "X-Device-Id: \(device)\r\n" }
        if let token { head += "X-User-Token: \(token)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bodyBytes = Array((body ?? "").utf8)
        if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n" }
        return try Self.exchange(port: server.port, bytes: Array((head + "\r\n").utf8) + bodyBytes)
    }

    /// A path under the agent: `api("conversations")` is `/api/sdk/agents/demo-agent/conversations`.
    func api(_ rest: String) -> String { "/api/sdk/agents/\(agent)/\(rest)" }

    /// POST chat; returns the response.
    func chat(
        _ message: String?, conversation: String? = nil, stream: Bool = true, device: String? = "device-a",
        token: String? = nil, headers: [(String, String)] = []
    ) throws -> APIResponse {
        var body = JSONObject()
        if let message { body["message"] = .string(message) }
        if let conversation { body["conversationId"] = .string(conversation) }
        body["stream"] = .bool(stream)
        return try request(
            "POST", api("chat"), device: device, token: token, headers: headers, body: JSONTree.object(body).jsonText)
    }

    /// Starts a conversation with `message` and returns its ID (from the finish metadata).
    func startConversation(_ message: String, device: String? = "device-a", token: String? = nil) throws -> String {
        let response = try chat(message, device: device, token: token)
        guard response.status == 200,
            let id = response.streamChunks.chunks.last?["messageMetadata"]?["conversationId"]?.stringValue
        else { throw APITestError(description: "chat failed: \(response.status) \(response.text)") }
        return id
    }

    /// GET a page and return its items and pagination.
    func page(_ path: String, device: String? = "device-a", token: String? = nil) throws -> (
        items: [JSONTree], cursor: String?, hasMore: Bool, total: Int?, status: Int
    ) {
        let response = try request("GET", path, device: device, token: token)
        let json = response.json
        return (
            json["data"]?.arrayValue ?? [], json["pagination"]?["cursor"]?.stringValue,
            json["pagination"]?["hasMore"]?.boolValue ?? false, json["pagination"]?["total"]?.intValue,
            response.status
        )
    }

    /// Follows cursors from `path` (which has a query) and returns every page's item IDs.
    func allPages(_ path: String, device: String? = "device-a") throws -> [[String]] {
        var pages: [[String]] = []
        var next: String? = path
        while let current = next, pages.count < 50 {
            let page = try self.page(current, device: device)
            guard page.status == 200 else { throw APITestError(description: "page status \(page.status)") }
            pages.append(page.items.compactMap { $0["id"]?.stringValue })
            next = page.hasMore ? page.cursor.map { path + "&cursor=" + $0 } : nil
        }
        return pages
    }

    // MARK: - Raw socket

    static func exchange(port: UInt16, bytes: [UInt8]) throws -> APIResponse {
        let fd = testStreamSocket(AF_INET)
        guard fd >= 0 else { throw APITestError(description: "socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw APITestError(description: "connect failed") }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { testSend(fd, $0.baseAddress, $0.count) }
            guard sent > 0 else { throw APITestError(description: "send failed") }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }  // EOF, reset, or timeout: whatever arrived is the response
            received.append(contentsOf: buffer[0..<count])
        }
        return try parse(received)
    }

    static func parse(_ bytes: [UInt8]) throws -> APIResponse {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator })
        else { throw APITestError(description: "no response head in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw APITestError(description: "bad status line \(lines[0])")
        }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let rest = Array(bytes[(headEnd + 4)...])
        var response = APIResponse(status: status, headers: headers, body: [], complete: false)
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            (response.body, response.complete) = dechunk(rest)
        } else {
            let length = response.header("Content-Length").flatMap { Int($0) } ?? rest.count
            response.body = Array(rest.prefix(length))
            response.complete = rest.count >= length
        }
        return response
    }

    /// The body of a chunked response, as much as arrived, and whether the last chunk came.
    static func dechunk(_ bytes: [UInt8]) -> ([UInt8], Bool) {
        var body: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<bytes.count).first(where: { bytes[$0] == 0x0A }) else { break }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            guard let size = Int(sizeText, radix: 16) else { break }
            if size == 0 { return (body, true) }
            let start = lineEnd + 1
            let end = min(start + size, bytes.count)
            body.append(contentsOf: bytes[start..<end])
            index = end + 2
        }
        return (body, false)
    }
}

/// A development JWT (unsigned) whose payload's `sub` is `user`.
func developmentToken(user: String) -> String {
    func segment(_ value: JSONTree) -> String {
        Data(value.jsonBytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    return segment(["alg": "none", "typ": "JWT"]) + "." + segment(["sub": .string(user)]) + ".c2ln"
}
