// The transports the transport suites run against: every test there runs once per transport, so
// URLSession's path, libcurl's (Linux) and the plain-HTTP socket path are held to the same behaviour.

import ChatStreamClient
import Testing

/// A transport the transport suites test: URLSession's path on Apple platforms, libcurl's on Linux
/// (where URLSessionTransport goes through CurlTransport too), and PlainHTTPTransport (the
/// default for `http://` on Linux) everywhere.
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    #if os(Linux)
        /// ``CurlTransport``, the only path on Linux.
        case curl
    #else
        /// ``URLSessionTransport``.
        case urlSession
    #endif
    /// ``PlainHTTPTransport``: HTTP/1.1 on a socket.
    case plain

    /// The kinds that decode a compressed body (PlainHTTPTransport asks for none and decodes none).
    static var decodingCompressedBodies: [TransportUnderTest] { allCases.filter { $0 != .plain } }

    /// A transport of this kind with `limits`.
    func make(_ limits: URLSessionTransport.Limits = URLSessionTransport.Limits()) -> any HTTPTransport {
        switch self {
        #if os(Linux)
            case .curl: return CurlTransport(limits: limits)
        #else
            case .urlSession: return URLSessionTransport(limits: limits)
        #endif
        case .plain: return PlainHTTPTransport(limits: limits)
        }
    }

    /// The limits `transport` holds to, when it is of a kind this enum makes.
    func limits(of transport: any HTTPTransport) -> URLSessionTransport.Limits? {
        if let transport = transport as? URLSessionTransport { return transport.limits }
        if let transport = transport as? PlainHTTPTransport { return transport.limits }
        #if os(Linux)
            if let transport = transport as? CurlTransport { return transport.limits }
        #endif
        return nil
    }

    var testDescription: String { rawValue }
}
