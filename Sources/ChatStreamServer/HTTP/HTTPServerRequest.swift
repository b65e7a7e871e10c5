import ChatStream
import ChatStreamHTTP

/// One parsed HTTP request, body included, as handed to the ``HTTPServer`` handler.
///
/// ```swift
/// let server = HTTPServer { request, response in
///     let limit = request.queryValue("limit").flatMap(Int.init) ?? 20
///     try response.respond(status: 200, headers: [("Content-Type", "text/plain")], body: Array("\(limit)".utf8))
/// }
/// ```
package struct HTTPServerRequest: Sendable {
    /// The method token as sent (`GET`, `POST`, ...); methods are case-sensitive.
    var method: String
    /// The request target as sent (path and query, still percent-encoded).
    var target: String
    /// The path part of the target, still percent-encoded (`/agents/a%20b/chat`).
    var path: String
    /// The path split at `/` with each segment percent-decoded (`["agents", "a b", "chat"]`); empty segments dropped.
    var pathSegments: [String]
    /// The raw query string after `?` (without it), or nil when the target has no `?`.
    var query: String?
    /// Query parameters in order, percent-decoded with `+` read as a space; repeated names are all kept.
    var queryItems: [(name: String, value: String)]
    /// The header fields.
    var headers: HTTPHeaderFields
    /// The body (already de-chunked); empty when the request had none.
    var body: [UInt8]
    /// The peer's address, `127.0.0.1:54321` or `[::1]:54321`.
    var remoteAddress: String

    /// The peer's numeric IP, without the port (the address the per-address caps count).
    var remoteHost: String {
        if remoteAddress.hasPrefix("["), let end = remoteAddress.firstIndex(of: "]") {
            return String(remoteAddress[remoteAddress.index(after: remoteAddress.startIndex)..<end])
        }
        guard let colon = remoteAddress.lastIndex(of: ":") else { return remoteAddress }
        return String(remoteAddress[..<colon])
    }
    /// The protocol version: `(1, 1)` or `(1, 0)`.
    var version: (major: Int, minor: Int)

    /// A request built by hand (for handler unit tests); `path`, `pathSegments`, `query` and `queryItems` come from `target`.
    init(
        method: String, target: String, headers: HTTPHeaderFields = HTTPHeaderFields(), body: [UInt8] = [],
        remoteAddress: String = "", version: (major: Int, minor: Int) = (1, 1)
    ) {
        self.method = method
        self.target = target
        var pathPart = Substring(target)
        for scheme in ["http://", "https://"] where target.hasPrefix(scheme) {
            // absolute-form: drop scheme and authority
            let authorityAndRest = target.dropFirst(scheme.count)
            if let slash = authorityAndRest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                pathPart = authorityAndRest[slash...]
            } else {
                pathPart = "/"
            }
            if pathPart.first == "?" { pathPart = Substring("/" + pathPart) }
        }
        if let mark = pathPart.firstIndex(of: "?") {
            path = String(pathPart[..<mark])
            let rawQuery = String(pathPart[pathPart.index(after: mark)...])
            query = rawQuery
            queryItems = QueryDecoding.items(rawQuery)
        } else {
            path = String(pathPart)
            query = nil
            queryItems = []
        }
        pathSegments = path.split(separator: "/").map { QueryDecoding.percentDecoded($0, plusAsSpace: false) }
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.version = version
    }

    /// Every value of the query parameter `name`, in order (`?tag=a&tag=b` gives `["a", "b"]`).
    package func queryValues(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }

    /// The first value of the query parameter `name`, or nil.
    package func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Whether the client asked to keep the connection open after this request.
    var wantsKeepAlive: Bool {
        if version.major == 1 && version.minor >= 1 {
            return !headers.contains("Connection", token: "close")
        }
        return headers.contains("Connection", token: "keep-alive")
    }
}
