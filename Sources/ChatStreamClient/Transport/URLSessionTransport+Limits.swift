import Foundation

extension URLSessionTransport {
    /// What a ``URLSessionTransport`` buffers and accepts from a server, so that a hostile or broken
    /// server cannot grow the client's memory without bound.
    ///
    /// ```swift
    /// var limits = URLSessionTransport.Limits()
    /// limits.maxBufferedBytes = 256 << 10
    /// limits.redirects = .anyOrigin   // identity headers are still dropped on the other origin
    /// let transport = URLSessionTransport(limits: limits)
    /// ```
    public struct Limits: Sendable, Hashable {
        /// The ceiling on body bytes in flight: received from the network but not yet taken by the
        /// body's consumer. When it is reached, reading pauses (the socket is no longer read, so TCP
        /// pushes back on the server) until the consumer has taken half of it. One network chunk
        /// (at most 16 KiB on Linux) may pass it. Default 1 MiB.
        public var maxBufferedBytes: Int
        /// The most bytes a compressed body (`Content-Encoding` other than `identity`) may decode
        /// to; past it the body fails with ``TransportError/Kind/bodyTooLarge``, naming the limit.
        /// Default 64 MiB, the client's own limit on a whole JSON body.
        public var maxDecodedBodyBytes: Int
        /// The most bytes of a response head (every `Name: value` line with its line break);
        /// past it the request fails with ``TransportError/Kind/headerTooLarge``. Default 64 KiB.
        public var maxResponseHeaderBytes: Int
        /// Which redirects are followed. Default ``RedirectPolicy/sameOrigin``.
        public var redirects: RedirectPolicy

        /// Limits (defaults: 1 MiB in flight, 64 MiB decoded, 64 KiB of head, same-origin redirects).
        public init(
            maxBufferedBytes: Int = 1 << 20, maxDecodedBodyBytes: Int = 64 << 20,
            maxResponseHeaderBytes: Int = 64 << 10, redirects: RedirectPolicy = .sameOrigin
        ) {
            self.maxBufferedBytes = max(1, maxBufferedBytes)
            self.maxDecodedBodyBytes = max(0, maxDecodedBodyBytes)
            self.maxResponseHeaderBytes = max(0, maxResponseHeaderBytes)
            self.redirects = redirects
        }
    }

    /// Which HTTP redirects a ``URLSessionTransport`` follows.
    ///
    /// An origin is scheme, host and port (`http://a:80` and `http://a` are one origin). A redirect
    /// that is not followed fails the request with ``TransportError/Kind/redirectRefused``.
    public struct RedirectPolicy: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable, Sendable { case none, sameOrigin, anyOrigin }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No redirect is followed.
        public static let none = RedirectPolicy(.none)
        /// Redirects within the request's origin are followed, with every header.
        public static let sameOrigin = RedirectPolicy(.sameOrigin)
        /// Every redirect is followed; on a hop to another origin the identity headers
        /// (``URLSessionTransport/identityHeaders``) are dropped, and stay dropped for the hops after it.
        public static let anyOrigin = RedirectPolicy(.anyOrigin)

        /// The policy's name.
        public var description: String { "\(base)" }

        /// Whether a redirect from `origin` to `target` is followed.
        func follows(from origin: URL, to target: URL) -> Bool {
            switch base {
            case .none: return false
            case .sameOrigin: return Origin(origin) == Origin(target)
            case .anyOrigin: return true
            }
        }
    }

    /// The headers that say who the caller is, never sent to another origin: `X-Device-Id`,
    /// `X-User-Token`, `Authorization`, `Cookie`.
    public static let identityHeaders = ["X-Device-Id", "X-User-Token", "Authorization", "Cookie"]
}

/// Scheme, host and port of a URL (default ports filled in), compared case-insensitively.
struct Origin: Hashable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int?

    init(_ url: URL) {
        scheme = (url.scheme ?? "").lowercased()
        host = (url.host ?? "").lowercased()
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }

    var description: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }
}
