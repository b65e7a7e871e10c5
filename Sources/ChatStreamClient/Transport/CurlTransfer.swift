// CurlTransfer: what the driver thread keeps of one CurlExchange: the easy handle and what it
// owns, the hop being sent (URL, method, body, headers), and the response being parsed.

import ChatStreamHTTP

#if canImport(CCurl)
    import CCurl
    import Foundation

    /// The driver thread's state of one exchange (see CurlExchange).
    struct CurlTransfer {
        /// The hop being sent: the request's, then each followed redirect's.
        var url: URL
        var method: String
        var body: [UInt8]?
        var headers: HTTPHeaderFields
        /// A hop went to another origin: identity headers are not sent again, on any later hop.
        var crossedOrigin = false
        var redirects = 0
        /// The current response's head ended with a redirect to follow: the next hop is set up.
        var redirecting = false

        /// libcurl's handle and what it points into (freed by `CurlExchange.releaseEasy`).
        var easy: UnsafeMutableRawPointer?
        var headerList: UnsafeMutablePointer<curl_slist>?
        var errorBuffer: UnsafeMutablePointer<CChar>?

        /// The response being parsed (a redirect's or an interim one's, then the final one).
        var status = 0
        var responseHeaders = HTTPHeaderFields()
        var headBytes = 0
        /// The final head went to the caller: body bytes go to the consumer, header lines are trailers.
        var delivering = false
        /// Decoded bytes of a compressed body so far; nil for a body without `Content-Encoding`.
        var decodedBytes: Int?
        /// Body bytes taken in this round of the driver's loop, and whether the hop yielded the rest
        /// of the round to the other transfers (see CurlDriver's `endRound`).
        var roundBytes = 0
        var yieldedRound = false
        /// The driver found the idle deadline passed once; if it still has after the next read, it counts.
        var idleDeadlinePassed = false

        /// The hop of `request`, with each of `additionalHeaders` whose name the request lacks.
        init(request: HTTPRequest, additionalHeaders: HTTPHeaderFields = [:]) {
            url = request.url
            method = request.method.uppercased()
            body = request.body
            headers = request.headers
            for (name, value) in additionalHeaders where request.headers[name] == nil {
                headers.append(name: name, value: value)
            }
        }

        /// The header lines to send on this hop.
        var headerLines: [String] {
            var lines: [String] = []
            for (name, value) in headers {
                if crossedOrigin,
                    URLSessionTransport.identityHeaders.contains(where: {
                        $0.caseInsensitiveCompare(name) == .orderedSame
                    })
                {
                    continue
                }
                if body == nil, ["content-type", "content-length"].contains(name.lowercased()) { continue }
                lines.append("\(name): \(value)")
            }
            // No `Expect: 100-continue` round trip before a body.
            lines.append("Expect:")
            return lines
        }
    }

    extension CurlExchange {
        /// Makes and configures the easy handle for the current hop (driver thread).
        func makeEasy() -> UnsafeMutableRawPointer? {
            guard let easy = curl_easy_init() else { return nil }
            transfer.easy = easy
            transfer.status = 0
            transfer.responseHeaders = HTTPHeaderFields()
            transfer.headBytes = 0
            transfer.redirecting = false
            let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(chatstream_curl_error_size()))
            errorBuffer.initialize(to: 0)
            transfer.errorBuffer = errorBuffer
            let context = Unmanaged.passUnretained(self).toOpaque()

            var ok = chatstream_curl_set_string(easy, CURLOPT_URL, transfer.url.absoluteString) == CURLE_OK
            _ = chatstream_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
            _ = chatstream_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
            // Every encoding libcurl decodes may be offered and is decoded (and counted).
            _ = chatstream_curl_set_string(easy, CURLOPT_ACCEPT_ENCODING, "")
            _ = chatstream_curl_set_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
            _ = chatstream_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
            _ = chatstream_curl_set_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
            _ = chatstream_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
            switch transfer.method {
            case "GET" where transfer.body == nil:
                _ = chatstream_curl_set_long(easy, CURLOPT_HTTPGET, 1)
            case "HEAD":
                _ = chatstream_curl_set_long(easy, CURLOPT_NOBODY, 1)
            default:
                if transfer.body != nil || transfer.method == "POST" {
                    let body = transfer.body ?? []
                    _ = chatstream_curl_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                    // libcurl copies the body (COPYPOSTFIELDS), so it may go when this returns.
                    ok =
                        ok
                        && body.withUnsafeBytes { raw in
                            let bytes = raw.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
                            return chatstream_curl_set_pointer(
                                easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes)) == CURLE_OK
                        }
                }
                if transfer.method != "POST" {
                    _ = chatstream_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, transfer.method)
                }
            }
            var lines = transfer.headerLines
            // Stored cookies go with the request's own origin only, as the identity headers do.
            if !transfer.crossedOrigin, transfer.headers["Cookie"] == nil,
                let cookie = configuration.cookieField(for: transfer.url)
            {
                lines.append("Cookie: \(cookie)")
            }
            var list: UnsafeMutablePointer<curl_slist>? = nil
            for line in lines {
                guard let appended = curl_slist_append(list, line) else {
                    ok = false
                    break
                }
                list = appended
            }
            transfer.headerList = list
            _ = chatstream_curl_set_pointer(easy, CURLOPT_HTTPHEADER, list.map { UnsafeMutableRawPointer($0) })
            guard ok else {
                releaseEasy()
                return nil
            }
            return easy
        }

        /// Frees the easy handle and what it points into (driver thread, after it left the multi handle).
        func releaseEasy() {
            if let easy = transfer.easy { curl_easy_cleanup(easy) }
            if let list = transfer.headerList { curl_slist_free_all(list) }
            transfer.errorBuffer?.deallocate()
            transfer.easy = nil
            transfer.headerList = nil
            transfer.errorBuffer = nil
        }

        /// libcurl's message for the last failure of this hop, if it wrote one.
        var curlErrorText: String {
            guard let buffer = transfer.errorBuffer, buffer.pointee != 0 else { return "" }
            return String(cString: buffer)
        }
    }

    /// `CURLOPT_WRITEFUNCTION`: body bytes for the exchange in `context`.
    private let curlWriteCallback: chatstream_curl_data_callback = { bytes, size, count, context in
        let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
        return exchange.receive(body: UnsafeRawBufferPointer(start: bytes, count: size * count))
    }

    /// `CURLOPT_HEADERFUNCTION`: one head line (status line, field, or the blank line) for the exchange.
    private let curlHeaderCallback: chatstream_curl_data_callback = { bytes, size, count, context in
        let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
        return exchange.receive(headerLine: UnsafeRawBufferPointer(start: bytes, count: size * count))
    }
#endif
