import ChatStreamHTTP

/// A response from an ``HTTPTransport``: status and headers at once, the body as it arrives.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaderFields
    /// The body chunks as the server sends them. Dropping the response (and so the body) or
    /// cancelling its consumer cancels the underlying network request.
    public var body: HTTPBody

    /// A response (for test doubles: `HTTPResponse(status: 200, body: HTTPBody(bytes: ...))`).
    public init(status: Int, headers: HTTPHeaderFields = [:], body: HTTPBody = HTTPBody(bytes: [])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
