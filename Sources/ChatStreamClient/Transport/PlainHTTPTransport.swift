// PlainHTTPTransport: HTTP/1.1 over POSIX sockets for `http://` URLs, so that a request to a plain
// HTTP server (the local server, a loopback reply) never loads libcurl and its TLS libraries: on
// Linux that load alone was about 16 ms of a `chatstream chat`. Other schemes go to a fallback
// transport (on Linux the default pairs it with CurlTransport, which does https).
//
// One connection per request, closed at the end of the response (`Connection: close`): what the
// client sends is a handful of requests per process, over loopback or a LAN, where a connect is
// cheap, and a connection that is never reused cannot hand a request a stale socket. The request
// goes as one write (head and body); the response head is parsed by HTTPResponseHeadParser, the
// body framed by Content-Length, the chunked coding, or the close (ChatStreamHTTP's
// HTTPResponseParsing.swift, shared with the server's upstream requests), on a thread of the
// exchange's own (PlainHTTPExchange.swift). Redirects are followed here, as
// CurlTransport follows them (`Limits.redirects`; identity headers never go to another origin;
// a redirect to another scheme goes to the fallback). No `Accept-Encoding` is sent, so the body
// comes as the server has it; a response coded anyway (`Content-Encoding`) that the caller did not
// ask for fails with `.invalidResponse`, for this transport decodes no content coding.

import ChatStreamHTTP
import Foundation

/// An ``HTTPTransport`` that speaks HTTP/1.1 over a plain TCP socket for `http://` URLs, and hands
/// every other URL (`https://`) to a fallback transport.
///
/// It holds to the same ``Limits`` as ``URLSessionTransport`` and ``CurlTransport``: bytes in flight
/// (reading pauses at the ceiling until the consumer takes them), the size of the response head, and
/// the redirect policy. Cancelling the task awaiting ``send(_:)``, cancelling the body's consumer or
/// dropping the body closes the connection (``TransportError/Kind/cancelled``).
///
/// ```swift
/// let transport = PlainHTTPTransport(fallback: URLSessionTransport())
/// let response = try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!))
/// for try await chunk in response.body { print(chunk.count) }   // all bytes received since the last step
/// ```
public final class PlainHTTPTransport: HTTPTransport {
    /// The limits, the same type as ``URLSessionTransport``'s.
    public typealias Limits = URLSessionTransport.Limits

    /// What the transport buffers and accepts (bytes in flight, head, redirects; it decodes no
    /// compressed body, so ``URLSessionTransport/Limits/maxDecodedBodyBytes`` has nothing to limit).
    public let limits: Limits
    /// Where requests for other schemes than `http` go (nil: they fail with
    /// ``TransportError/Kind/connectionFailed``).
    public let fallback: (any HTTPTransport)?

    /// The most redirects followed for one request.
    static let maxRedirects = 16

    /// A transport that holds to `limits` and sends what is not `http://` to `fallback`.
    public init(limits: Limits = Limits(), fallback: (any HTTPTransport)? = nil) {
        self.limits = limits
        self.fallback = fallback
    }

    /// Sends `request` and returns when the final response head arrives.
    ///
    /// - Throws: ``TransportError`` (`.connectionFailed`, `.timedOut`, `.cancelled`, `.invalidResponse`,
    ///   `.headerTooLarge`, `.redirectRefused`), or what the fallback throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var hop = Hop(request: request)
        while true {
            guard hop.url.scheme?.lowercased() == "http" else {
                guard let fallback else {
                    throw TransportError(
                        .connectionFailed, "PlainHTTPTransport sends http:// URLs only, not \(hop.url.absoluteString)")
                }
                return try await fallback.send(hop.request(from: request))
            }
            let response = try await exchange(hop, idleTimeout: request.idleTimeout)
            guard [301, 302, 303, 307, 308].contains(response.status),
                let location = response.headers["Location"]
            else {
                if let encoding = response.headers["Content-Encoding"]?.lowercased(),
                    !encoding.isEmpty, encoding != "identity", hop.headers["Accept-Encoding"] == nil
                {
                    response.body.cancel()
                    throw TransportError(
                        .invalidResponse,
                        "the response's Content-Encoding is \"\(encoding)\", which was not asked for "
                            + "(no Accept-Encoding was sent) and which PlainHTTPTransport does not decode")
                }
                return response
            }
            // The redirect's own body is not read.
            response.body.cancel()
            try hop.follow(status: response.status, location: location, origin: request.url, limits: limits)
        }
    }

    /// One hop on a connection of its own: returns when its head is in.
    private func exchange(_ hop: Hop, idleTimeout: Duration) async throws -> HTTPResponse {
        let exchange = try PlainHTTPExchange(
            url: hop.url, method: hop.method, requestBytes: try hop.serialized(), idleTimeout: idleTimeout,
            limits: limits)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                exchange.start(head: continuation)
            }
        } onCancel: {
            exchange.fail(TransportError(.cancelled, "the request was cancelled"))
        }
    }

    /// The request as sent on one hop: the caller's, then each followed redirect's.
    struct Hop {
        var url: URL
        var method: String
        var headers: HTTPHeaderFields
        var body: [UInt8]?
        var redirects = 0
        /// A hop went to another origin: identity headers are not sent again, on any later hop.
        var crossedOrigin = false

        init(request: HTTPRequest) {
            url = request.url
            method = request.method.uppercased()
            headers = request.headers
            body = request.body
        }

        /// Sets up the hop a `status` redirect to `location` leads to, as `limits` allow.
        mutating func follow(status: Int, location: String, origin: URL, limits: Limits) throws {
            guard let target = URL(string: location, relativeTo: url)?.absoluteURL else {
                throw TransportError(.invalidResponse, "\(status) redirect to an invalid Location \"\(location)\"")
            }
            guard limits.redirects.follows(from: origin, to: target) else {
                throw TransportError(
                    .redirectRefused,
                    "\(status) redirect from \(url.absoluteString) to \(target.absoluteString) not followed: "
                        + "the redirect policy is \(limits.redirects) (URLSessionTransport.Limits.redirects)")
            }
            redirects += 1
            guard redirects <= PlainHTTPTransport.maxRedirects else {
                throw TransportError(.invalidResponse, "more than \(PlainHTTPTransport.maxRedirects) redirects")
            }
            if Origin(target) != Origin(origin) { crossedOrigin = true }
            if status == 303 && method != "HEAD" || (status == 301 || status == 302) && method == "POST" {
                method = "GET"
                body = nil
            }
            url = target
        }

        /// The fields to send on this hop (identity headers dropped once another origin was reached;
        /// the body's framing fields are the transport's).
        var fields: [(name: String, value: String)] {
            headers.fields.filter { field in
                let name = field.name.lowercased()
                if ["content-length", "transfer-encoding", "host", "connection"].contains(name) { return false }
                if body == nil && name == "content-type" { return false }
                return
                    !(crossedOrigin
                    && URLSessionTransport.identityHeaders.contains { $0.lowercased() == name })
            }
        }

        /// This hop as a request for another transport.
        func request(from original: HTTPRequest) -> HTTPRequest {
            var request = original
            request.url = url
            request.method = method
            request.body = body
            request.headers = HTTPHeaderFields(fields)
            return request
        }

        /// The request line, header fields and body, as one write.
        ///
        /// - Throws: ``TransportError`` `.connectionFailed` when a field would not be one line.
        func serialized() throws -> [UInt8] {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            var target = components?.percentEncodedPath ?? ""
            if target.isEmpty { target = "/" }
            if let query = components?.percentEncodedQuery { target += "?" + query }
            var host = url.host ?? ""
            if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
            if let port = url.port, port != 80 { host += ":\(port)" }
            var text = "\(method) \(target) HTTP/1.1\r\nHost: \(headers["Host"] ?? host)\r\n"
            for (name, value) in fields {
                guard !name.isEmpty, name.utf8.allSatisfy(HTTPHeaderFields.isTokenByte),
                    !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
                else {
                    throw TransportError(
                        .connectionFailed, "the request's header field \"\(name)\" is not a valid one-line field")
                }
                text += "\(name): \(value)\r\n"
            }
            // One request per connection (the file's comment says why).
            text += "Connection: close\r\n"
            if let body {
                text += "Content-Length: \(body.count)\r\n"
            } else if method == "POST" || method == "PUT" || method == "PATCH" {
                text += "Content-Length: 0\r\n"
            }
            text += "\r\n"
            var bytes = Array(text.utf8)
            if let body { bytes += body }
            return bytes
        }
    }
}

extension TransportError {
    /// A response ``PlainHTTPTransport`` could not parse: `.invalidResponse`, or `.headerTooLarge`
    /// naming the limit that was passed.
    init(parsing error: HTTPResponseParseError) {
        switch error.kind {
        case .invalid: self.init(.invalidResponse, error.message)
        case .headTooLarge:
            self.init(.headerTooLarge, error.message + " (URLSessionTransport.Limits.maxResponseHeaderBytes)")
        }
    }
}
