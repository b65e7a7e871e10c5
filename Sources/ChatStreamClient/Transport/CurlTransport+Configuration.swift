// CurlTransport.Configuration: the settings of a URLSessionConfiguration that libcurl can honour.
//
// On Linux every request goes through CurlTransport; the URLSessionConfiguration an app passes to
// ChatbaseClient's documented initialiser (or to URLSessionTransport) is mapped onto this.
// Mapped: `httpAdditionalHeaders` (sent with every request; a request's own field of the same
// name wins), `httpShouldSetCookies` with `httpCookieStorage` (the storage's cookies for each
// hop's URL go as `Cookie`, never to another origin than the request's), `httpCookieAcceptPolicy`
// with `httpCookieStorage` (each response head's `Set-Cookie` fields are stored: always, only for
// the request's own host, or never), `timeoutIntervalForResource` (the longest a request may take
// in all). `timeoutIntervalForRequest` is the idle timeout each request carries (ChatbaseClient's
// documented initialiser sets its requests' from it). The rest has no counterpart here (see
// ``CurlTransport/Configuration``'s documentation).

import ChatStreamHTTP

#if canImport(CCurl)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension CurlTransport {
        /// What a ``CurlTransport`` adds to each request and keeps between them: the settings of a
        /// `URLSessionConfiguration` that libcurl can honour.
        ///
        /// ```swift
        /// let session = URLSessionConfiguration.default
        /// session.httpAdditionalHeaders = ["X-App-Version": "2.1"]
        /// session.timeoutIntervalForResource = 120
        /// let transport = CurlTransport(configuration: CurlTransport.Configuration(session))
        /// ```
        ///
        /// From a `URLSessionConfiguration` (``init(_:)``): `httpAdditionalHeaders`,
        /// `httpShouldSetCookies`, `httpCookieAcceptPolicy`, `httpCookieStorage` and
        /// `timeoutIntervalForResource` are honoured. `timeoutIntervalForRequest` is each request's
        /// ``HTTPRequest/idleTimeout`` instead (``ChatbaseClient``'s documented initialiser sets it
        /// from the configuration). Not honoured, for libcurl has no counterpart here or the
        /// setting means nothing off Apple platforms: `urlCache` and `requestCachePolicy` (nothing
        /// is cached), `urlCredentialStorage`, `connectionProxyDictionary` (libcurl reads the usual
        /// proxy environment variables), the TLS versions, `httpMaximumConnectionsPerHost`,
        /// `httpShouldUsePipelining`, `waitsForConnectivity`, `allowsCellularAccess` and the other
        /// network-kind settings.
        public struct Configuration: Sendable {
            /// Fields sent with every request, unless the request has a field of the same name.
            public var additionalHeaders: HTTPHeaderFields
            /// Where cookies are read from and stored (nil: no cookies at all).
            public var cookieStorage: HTTPCookieStorage?
            /// Whether the storage's cookies for a request's URL are sent (as `Cookie`), unless the
            /// request has its own `Cookie` field. Never to another origin than the request's.
            public var sendsCookies: Bool
            /// Which `Set-Cookie` fields of a response are stored: every one (`.always`), those for
            /// the request's own host (`.onlyFromMainDocumentDomain`), or none (`.never`).
            public var cookieAcceptPolicy: HTTPCookie.AcceptPolicy
            /// The longest a request may take in all, head and body (nil: no limit); past it the
            /// request fails with ``TransportError/Kind/timedOut``.
            public var resourceTimeout: Duration?

            /// A configuration (defaults: no extra fields, no cookies, no overall limit).
            public init(
                additionalHeaders: HTTPHeaderFields = [:], cookieStorage: HTTPCookieStorage? = nil,
                sendsCookies: Bool = true, cookieAcceptPolicy: HTTPCookie.AcceptPolicy = .onlyFromMainDocumentDomain,
                resourceTimeout: Duration? = nil
            ) {
                self.additionalHeaders = additionalHeaders
                self.cookieStorage = cookieStorage
                self.sendsCookies = sendsCookies
                self.cookieAcceptPolicy = cookieAcceptPolicy
                self.resourceTimeout = resourceTimeout
            }

            /// The settings of `configuration` that libcurl can honour (see the type's
            /// documentation for which).
            public init(_ configuration: URLSessionConfiguration) {
                var headers = HTTPHeaderFields()
                for (name, value) in configuration.httpAdditionalHeaders ?? [:] {
                    headers.append(name: "\(name.base)", value: "\(value)")
                }
                let resource = configuration.timeoutIntervalForResource
                self.init(
                    additionalHeaders: HTTPHeaderFields(headers.fields.sorted { $0.name < $1.name }),
                    cookieStorage: configuration.httpCookieStorage, sendsCookies: configuration.httpShouldSetCookies,
                    cookieAcceptPolicy: configuration.httpCookieAcceptPolicy,
                    resourceTimeout: resource > 0 && resource.isFinite ? .milliseconds(Int64(resource * 1000)) : nil)
            }

            /// The `Cookie` field for a hop to `url` (nil: none to send).
            func cookieField(for url: URL) -> String? {
                guard sendsCookies, let cookies = cookieStorage?.cookies(for: url), !cookies.isEmpty else { return nil }
                return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
            }

            /// Stores the cookies `headers` (a response head for `url`) sets, as the policy allows;
            /// `origin` is the request's own URL.
            func storeCookies(from headers: HTTPHeaderFields, for url: URL, origin: URL) {
                guard let storage = cookieStorage, cookieAcceptPolicy != .never else { return }
                let lines = headers.values(for: "Set-Cookie")
                guard !lines.isEmpty else { return }
                let host = (origin.host ?? "").lowercased()
                for line in lines {
                    for cookie in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url) {
                        if cookieAcceptPolicy == .onlyFromMainDocumentDomain {
                            var domain = cookie.domain.lowercased()
                            if domain.hasPrefix(".") { domain.removeFirst() }
                            guard host == domain || host.hasSuffix("." + domain) else { continue }
                        }
                        storage.setCookie(cookie)
                    }
                }
            }
        }
    }
#endif
