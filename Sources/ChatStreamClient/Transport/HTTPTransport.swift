/// Sends one HTTP request and returns the response as soon as its head arrives; the body follows as
/// an async sequence of chunks.
///
/// The protocol is small on purpose: a test double only has to implement ``send(_:)``.
///
/// ```swift
/// let transport: any HTTPTransport = URLSessionTransport()
/// let response = try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!))
/// for try await chunk in response.body { print(chunk.count) }
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends `request`; returns once the response head is in (read the body from the response).
    /// Throws a ``TransportError`` when no response head arrives (kind `.cancelled` when the calling
    /// task is cancelled).
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
