#if !canImport(CCurl)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension URLSessionExchange {
        /// Maps a URLSession error to a ``TransportError``.
        static func translate(_ error: any Error, afterHead: Bool, limits: URLSessionTransport.Limits) -> TransportError
        {
            guard let urlError = error as? URLError else {
                return TransportError(afterHead ? .connectionLost : .connectionFailed, "\(error)")
            }
            let description = urlError.localizedDescription
            let message = description + " (URLError \(urlError.code.rawValue))"
            if !afterHead, isHeaderOverflow(description) {
                // libcurl refuses a header line over its own limit (100 KiB) and says only "Out of memory"
                // or "Avoided giant realloc for header".
                return TransportError(
                    .headerTooLarge,
                    "the response head is over the HTTP library's limit (libcurl: \(description)); the transport's "
                        + "limit is \(limits.maxResponseHeaderBytes) bytes (URLSessionTransport.Limits.maxResponseHeaderBytes)",
                    underlyingError: urlError)
            }
            let kind: TransportError.Kind
            switch urlError.code {
            case .cancelled: kind = .cancelled
            case .timedOut: kind = .timedOut
            case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
                kind = .invalidResponse
            case .networkConnectionLost: kind = .connectionLost
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
                .secureConnectionFailed, .badURL, .unsupportedURL:
                kind = afterHead ? .connectionLost : .connectionFailed
            default: kind = afterHead ? .connectionLost : .connectionFailed
            }
            return TransportError(kind, message, underlyingError: urlError)
        }

        /// Whether libcurl's message says a response header was too large.
        private static func isHeaderOverflow(_ description: String) -> Bool {
            let text = description.lowercased()
            return text.contains("out of memory") || (text.contains("header") && text.contains("max"))
                || text.contains("too large response headers")
        }
    }
#endif
