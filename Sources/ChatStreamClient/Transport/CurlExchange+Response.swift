// What libcurl's callbacks deliver to a CurlExchange, on the driver thread: head lines (status,
// fields, the blank line that ends a head), body bytes, and the end of a hop.
//
// Redirects are followed here, not by libcurl (CURLOPT_FOLLOWLOCATION stays off): at the end of a
// 3xx head with a Location the policy decides; a refused redirect fails the request, a followed
// one aborts this hop (its body is not read) and the driver starts the next with a fresh handle.
// 303, and 301/302 after a POST, continue as GET without the body, as browsers and URLSession do.

import ChatStreamHTTP

#if canImport(CCurl)
    import CCurl
    import Foundation

    extension CurlExchange {
        /// The most redirects followed for one request.
        static let maxRedirects = 16

        /// One head line; returns its length, or 0 to abort the hop.
        func receive(headerLine raw: UnsafeRawBufferPointer) -> Int {
            let count = raw.count
            // Trailers after a chunked body, or the interim heads of an aborted hop.
            if transfer.delivering || transfer.redirecting { return count }
            let line = String(decoding: raw, as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                let fields = line.split(separator: " ", maxSplits: 2)
                transfer.status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
                transfer.responseHeaders = HTTPHeaderFields()
                transfer.headBytes = 0
                return count
            }
            let text = line.trimmingCharacters(in: .newlines)
            if text.isEmpty { return endOfHead() ? count : 0 }
            transfer.headBytes += text.utf8.count + 2
            guard transfer.headBytes <= limits.maxResponseHeaderBytes else {
                fail(
                    TransportError(
                        .headerTooLarge,
                        "the response head has more than \(limits.maxResponseHeaderBytes) bytes of header fields "
                            + "(URLSessionTransport.Limits.maxResponseHeaderBytes)"))
                return 0
            }
            guard let colon = text.firstIndex(of: ":") else { return count }
            let name = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            transfer.responseHeaders.append(name: name, value: value)
            return count
        }

        /// A head ended: an interim one, a redirect, or the final one (handed to `send`'s caller).
        /// False aborts the hop.
        private func endOfHead() -> Bool {
            let status = transfer.status
            if (100..<200).contains(status) { return true }
            configuration.storeCookies(from: transfer.responseHeaders, for: transfer.url, origin: request.url)
            if [301, 302, 303, 307, 308].contains(status), let location = transfer.responseHeaders["Location"] {
                return followRedirect(status: status, location: location)
            }
            let headers = transfer.responseHeaders
            let encoding = headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            if !encoding.isEmpty && encoding != "identity" { transfer.decodedBytes = 0 }
            transfer.delivering = true
            guard let head = shared.withLock({ $0.takeHead() }) else { return false }
            head.resume(returning: HTTPResponse(status: status, headers: headers, body: HTTPBody(batches: self)))
            return true
        }

        /// Sets up the next hop, or fails the request when the policy refuses it. False: abort this hop.
        private func followRedirect(status: Int, location: String) -> Bool {
            guard let target = URL(string: location, relativeTo: transfer.url)?.absoluteURL else {
                fail(TransportError(.invalidResponse, "\(status) redirect to an invalid Location \"\(location)\""))
                return false
            }
            guard limits.redirects.follows(from: request.url, to: target) else {
                fail(
                    TransportError(
                        .redirectRefused,
                        "\(status) redirect from \(transfer.url.absoluteString) to \(target.absoluteString) not followed: "
                            + "the redirect policy is \(limits.redirects) (URLSessionTransport.Limits.redirects)"))
                return false
            }
            transfer.redirects += 1
            guard transfer.redirects <= Self.maxRedirects else {
                fail(TransportError(.invalidResponse, "more than \(Self.maxRedirects) redirects"))
                return false
            }
            if Origin(target) != Origin(request.url) { transfer.crossedOrigin = true }
            if status == 303 && transfer.method != "HEAD"
                || (status == 301 || status == 302) && transfer.method == "POST"
            {
                transfer.method = "GET"
                transfer.body = nil
            }
            transfer.url = target
            transfer.redirecting = true
            return false
        }

        /// Body bytes (decoded, when the body is compressed); returns what was taken: all of it,
        /// 0 to abort, or libcurl's pause value to have the chunk kept and receiving paused.
        func receive(body raw: UnsafeRawBufferPointer) -> Int {
            let count = raw.count
            guard count > 0, transfer.delivering else { return count }
            if transfer.roundBytes >= CurlDriver.roundShare {
                transfer.yieldedRound = true
                return chatstream_curl_writefunc_pause()
            }
            let full: Bool? = shared.withLock { state in
                guard !state.ended else { return nil }
                guard state.pending.count >= limits.maxBufferedBytes else { return false }
                state.notePause()
                return true
            }
            guard let full else { return 0 }
            if full { return chatstream_curl_writefunc_pause() }
            if let decoded = transfer.decodedBytes {
                transfer.decodedBytes = decoded + count
                if decoded + count > limits.maxDecodedBodyBytes {
                    fail(
                        TransportError(
                            .bodyTooLarge,
                            "the compressed response body decodes to more than \(limits.maxDecodedBodyBytes) bytes "
                                + "(URLSessionTransport.Limits.maxDecodedBodyBytes)"))
                    return 0
                }
            }
            transfer.roundBytes += count
            let bytes = raw.bindMemory(to: UInt8.self)
            // Paused above on its own (libcurl's pause), so no bound here.
            let waiter: CheckedContinuation<[UInt8]?, any Error>? = shared.withLock { state in
                guard !state.ended else { return nil }
                return state.receive(bytes, pauseAt: nil)
            }
            waiter?.resume(returning: Array(bytes))
            return count
        }

        /// libcurl finished the hop with `result`; true when the driver should start the next hop.
        func transferDone(_ result: CURLcode) -> Bool {
            let message = curlErrorText
            releaseEasy()
            if transfer.redirecting, isRunning { return true }
            guard result != CURLE_OK else {
                end(with: nil)
                return false
            }
            let headDelivered = transfer.delivering
            end(with: Self.translate(result, detail: message, afterHead: headDelivered, limits: limits))
            return false
        }
    }
#endif
