// Building and sending the client's requests: the URL under `agents/{agentId}/`, the headers of
// the client's identity (device ID, user token), bodies with their UUID identifiers lower-cased,
// and the RequestPerformer that sends them (a successful answer also wakes an automatic outbox).

import ChatStream
import ChatStreamHTTP
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ChatbaseClient {
    /// The longest one request may take, its streamed answer included, however steadily the
    /// server keeps sending (a reply that trickles one token a minute is never idle); nil (the
    /// default) for no limit. Past it the answer ends with a timeout error, everything received
    /// before handed over (see ``HTTPRequest/totalTimeout``). The live event stream is endless and
    /// is not limited. ChatStream's own.
    ///
    /// ```swift
    /// client.totalTimeout = .seconds(120)
    /// ```
    public var totalTimeout: Duration? {
        get { withState { $0.totalTimeout } }
        set { withState { $0.totalTimeout = newValue } }
    }

    /// Sends `request` through the ``performer`` (see ``RequestPerformer/perform(_:extensionRoute:idempotent:)``);
    /// an answer from the server lets an automatic outbox deliver what waits.
    func perform(_ request: HTTPRequest, extensionRoute: Bool, idempotent: Bool = false) async throws
        -> HTTPResponse
    {
        let response = try await performer.perform(request, extensionRoute: extensionRoute, idempotent: idempotent)
        reachedServer()
        return response
    }

    /// `component` percent-encoded for one segment of a path: every UTF-8 byte but those of
    /// `CharacterSet.urlPathAllowed` less `/` and `;` (ASCII letters and digits and
    /// `!$&'()*+,-.:=@_~`) as `%XX`, what `addingPercentEncoding(withAllowedCharacters:)` gives for
    /// that set, in Swift alone (Foundation's goes through NSString and CFString: 0.77 million
    /// instructions for a command's first requests).
    static func percentEncodedPathSegment(_ component: String) -> String {
        let utf8 = component.utf8
        guard utf8.contains(where: { !isPathSegmentByte($0) }) else { return component }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isPathSegmentByte(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 15))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The upper-case hex digit of `value` (0...15).
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// Whether `byte` stands for itself in a path segment (see ``percentEncodedPathSegment(_:)``).
    static func isPathSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "="),
            UInt8(ascii: "@"), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// `baseURL/agents/{agentId}/<components...>?<query>`; a component that is a UUID is sent
    /// lower-case (``UUIDIdentifiers``).
    func url(_ components: [String], query: [(String, String)] = []) throws -> URL {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        for component in ["agents", agentId] + components.map(UUIDIdentifiers.normalized) {
            text += "/" + Self.percentEncodedPathSegment(component)
        }
        if let invalidBaseURL { throw ChatError.invalidURL(invalidBaseURL) }
        guard var parts = URLComponents(string: text) else { throw ChatError.invalidURL(text) }
        if !query.isEmpty { parts.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        // `+` is literal in URLComponents' encoding but a space to many servers.
        parts.percentEncodedQuery = parts.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = parts.url else { throw ChatError.invalidURL(text) }
        return url
    }

    func request(
        _ method: String, _ components: [String], query: [(String, String)] = [], body: JSONTree? = nil,
        accept: String = "application/json", checkIdentity: Bool = true
    ) throws -> HTTPRequest {
        let target = try url(components, query: query)
        var headers: HTTPHeaderFields = ["Accept": accept, "User-Agent": "ChatStream/\(Self.version)"]
        do {
            headers["X-Device-Id"] = try storedDeviceId()
        } catch {
            throw ChatError.identity(Self.identityError(error))
        }
        let (token, identityError) = withState { ($0.userToken, $0.identityError) }
        if checkIdentity, let identityError { throw ChatError.identity(identityError) }
        if let token { headers["X-User-Token"] = token }
        if body != nil { headers["Content-Type"] = "application/json" }
        var request = HTTPRequest(
            method: method, url: target, headers: headers, body: body.map(Self.normalizingIdentifiers)?.jsonBytes,
            idleTimeout: idleTimeout)
        request.totalTimeout = totalTimeout
        return request
    }

    /// `body` with its top-level `id`, `conversationId` and `messageId` lower-cased when they are
    /// UUIDs, as the server stores them.
    static func normalizingIdentifiers(_ body: JSONTree) -> JSONTree {
        guard case .object(var object) = body,
            ["id", "conversationId", "messageId"].contains(where: { key in
                object[key]?.stringValue.map(UUIDIdentifiers.needsNormalizing) ?? false
            })
        else { return body }
        for key in ["id", "conversationId", "messageId"] {
            if case .string(let id)? = object[key], UUIDIdentifiers.needsNormalizing(id) {
                object[key] = .string(id.lowercased())
            }
        }
        return .object(object)
    }

    /// Performs a JSON request and returns the whole 2xx body.
    func performForBytes(
        _ method: String, _ components: [String], query: [(String, String)] = [], body: JSONTree? = nil,
        extensionRoute: Bool, checkIdentity: Bool = true, idempotent: Bool? = nil
    ) async throws -> [UInt8] {
        let request = try request(method, components, query: query, body: body, checkIdentity: checkIdentity)
        let response = try await perform(
            request, extensionRoute: extensionRoute,
            idempotent: idempotent ?? RequestPerformer.isIdempotent(method: method))
        do {
            return try await response.body.collect(upTo: 64 << 20)
        } catch {
            throw ErrorMapping.wrapping(error)
        }
    }
}
