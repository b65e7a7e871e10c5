// The transports the transport suites run against: every test there runs once per transport, so
// URLSession's path and libcurl's (Linux) are held to the same behaviour.

import ChatStreamClient
import Testing

/// A transport the transport suites test.
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// ``URLSessionTransport`` (FoundationNetworking on Linux).
    case urlSession
    #if os(Linux)
        /// ``CurlTransport``, the default on Linux.
        case curl
    #endif

    /// A transport of this kind with `limits`.
    func make(_ limits: URLSessionTransport.Limits = URLSessionTransport.Limits()) -> any HTTPTransport {
        switch self {
        case .urlSession: return URLSessionTransport(limits: limits)
        #if os(Linux)
            case .curl: return CurlTransport(limits: limits)
        #endif
        }
    }

    /// The limits `transport` holds to, when it is of a kind this enum makes.
    func limits(of transport: any HTTPTransport) -> URLSessionTransport.Limits? {
        if let transport = transport as? URLSessionTransport { return transport.limits }
        #if os(Linux)
            if let transport = transport as? CurlTransport { return transport.limits }
        #endif
        return nil
    }

    var testDescription: String { rawValue }
}
