// Mapping libcurl's result codes to TransportError kinds, with the URLError URLSession would have
// given as the underlying error (the client documents a network error as holding one).

#if canImport(CCurl)
    import CCurl
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension CurlExchange {
        /// The ``TransportError`` for a hop that libcurl ended with `code`.
        static func translate(
            _ code: CURLcode, detail: String, afterHead: Bool, limits: CurlTransport.Limits
        ) -> TransportError {
            let summary = String(cString: curl_easy_strerror(code))
            let message = (detail.isEmpty ? summary : "\(summary): \(detail)") + " (libcurl error \(code.rawValue))"
            let kind: TransportError.Kind
            switch code.rawValue {
            case CURLE_OPERATION_TIMEDOUT.rawValue:
                kind = .timedOut
            case CURLE_OUT_OF_MEMORY.rawValue,
                100 /* CURLE_TOO_LARGE, libcurl 8.6 and later */ where !afterHead:
                // libcurl refuses one header line over its own limit (100 KiB).
                return TransportError(
                    .headerTooLarge,
                    "the response head is over the HTTP library's limit (\(message)); the transport's limit is "
                        + "\(limits.maxResponseHeaderBytes) bytes (URLSessionTransport.Limits.maxResponseHeaderBytes)")
            case CURLE_WEIRD_SERVER_REPLY.rawValue, CURLE_BAD_CONTENT_ENCODING.rawValue:
                kind = .invalidResponse
            case CURLE_GOT_NOTHING.rawValue, CURLE_PARTIAL_FILE.rawValue, CURLE_RECV_ERROR.rawValue,
                CURLE_SEND_ERROR.rawValue:
                kind = .connectionLost
            default:
                kind = afterHead ? .connectionLost : .connectionFailed
            }
            let underlying = URLError(urlErrorCode(code), userInfo: [NSLocalizedDescriptionKey: message])
            return TransportError(kind, message, underlyingError: underlying)
        }

        /// The URLError code URLSession reports for what libcurl's `code` says.
        static func urlErrorCode(_ code: CURLcode) -> URLError.Code {
            switch code.rawValue {
            case CURLE_COULDNT_RESOLVE_HOST.rawValue, CURLE_COULDNT_RESOLVE_PROXY.rawValue: return .cannotFindHost
            case CURLE_COULDNT_CONNECT.rawValue: return .cannotConnectToHost
            case CURLE_OPERATION_TIMEDOUT.rawValue: return .timedOut
            case CURLE_PEER_FAILED_VERIFICATION.rawValue: return .serverCertificateUntrusted
            case CURLE_SSL_CONNECT_ERROR.rawValue: return .secureConnectionFailed
            case CURLE_GOT_NOTHING.rawValue, CURLE_PARTIAL_FILE.rawValue, CURLE_RECV_ERROR.rawValue,
                CURLE_SEND_ERROR.rawValue:
                return .networkConnectionLost
            case CURLE_WEIRD_SERVER_REPLY.rawValue: return .badServerResponse
            case CURLE_BAD_CONTENT_ENCODING.rawValue: return .cannotDecodeContentData
            case CURLE_UNSUPPORTED_PROTOCOL.rawValue: return .unsupportedURL
            case CURLE_URL_MALFORMAT.rawValue: return .badURL
            default: return .unknown
            }
        }
    }
#endif
