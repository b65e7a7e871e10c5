// UpstreamCurl: a model agent's request to an `https://` upstream, over libcurl (Linux; the
// library the client's CurlTransport uses, opened at the first such request), so hosted
// providers are reached without a TLS proxy.
//
// Each request has its own multi handle, driven by the thread that reads it (the handler's while
// the head is read, then the reply's), the same pull model as the socket reader: `next` runs
// libcurl until body bytes arrive, the transfer ends, `shouldStop` says so (checked at least every
// 250 ms), or the agent's timeout passes without bytes. libcurl does the TLS (the peer and host
// name are verified: against the system's authorities, or the agent's `caFile`), the HTTP framing
// and any content decoding; redirects are not followed. Closing frees the handles, which closes
// the connection at once (a stopped reply).

#if canImport(CCurl)
    import CCurl
    import Foundation

    /// Sends upstream requests over libcurl.
    enum CurlUpstream {
        /// Sends `POST url` and reads the response head, as ``UpstreamHTTP/post(_:headers:body:timeout:caFile:shouldStop:)``.
        static func post(
            _ url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration,
            caFile: String?, shouldStop: () -> Bool
        ) throws(UpstreamError) -> UpstreamResponse {
            // libcurl is opened at the first https request, not at launch (CCurl.h says why).
            if let reason = chatstream_curl_load() {
                throw UpstreamError(message: "cannot reach an https:// upstream: \(String(cString: reason))")
            }
            let transfer = try CurlUpstreamTransfer(
                url: url, headers: headers, body: body, timeout: timeout, caFile: caFile)
            do {
                try transfer.run(shouldStop: shouldStop) { $0.headComplete }
            } catch {
                transfer.close()
                throw error
            }
            return UpstreamResponse(
                status: transfer.status, headers: transfer.headers, body: CurlUpstreamBody(transfer: transfer))
        }
    }

    /// The body of an https upstream response.
    struct CurlUpstreamBody: UpstreamBodyReading {
        let transfer: CurlUpstreamTransfer

        mutating func next(shouldStop: () -> Bool) throws(UpstreamError) -> [UInt8]? {
            try transfer.run(shouldStop: shouldStop) { !$0.received.isEmpty }
            return transfer.takeReceived()
        }

        func close() { transfer.close() }
    }

    /// One libcurl transfer and what its callbacks gathered. Used by one thread at a time (the
    /// handler's, then the reply thread it is handed to), hence unchecked Sendable.
    final class CurlUpstreamTransfer: @unchecked Sendable {
        private var multi: UnsafeMutableRawPointer?
        private var easy: UnsafeMutableRawPointer?
        private var headerList: UnsafeMutablePointer<curl_slist>?
        private let errorBuffer: UnsafeMutablePointer<CChar>
        let timeout: Duration
        /// The final response's status (an interim 1xx head is skipped) and header fields, names lower-cased.
        fileprivate(set) var status = 0
        fileprivate(set) var headers: [(name: String, value: String)] = []
        fileprivate(set) var headComplete = false
        /// Body bytes not yet handed out.
        fileprivate(set) var received: [UInt8] = []
        /// How the transfer ended, once it has.
        private var result: CURLcode?
        private var released = false

        init(
            url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration, caFile: String?
        ) throws(UpstreamError) {
            self.timeout = timeout
            errorBuffer = .allocate(capacity: Int(chatstream_curl_error_size()))
            errorBuffer.initialize(to: 0)
            guard let multi = curl_multi_init(), let easy = curl_easy_init() else {
                close()
                throw UpstreamError(message: "libcurl could not set up the request")
            }
            self.multi = multi
            self.easy = easy
            let context = Unmanaged.passUnretained(self).toOpaque()
            var ok = chatstream_curl_set_string(easy, CURLOPT_URL, url) == CURLE_OK
            _ = chatstream_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
            _ = chatstream_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
            _ = chatstream_curl_set_string(easy, CURLOPT_ACCEPT_ENCODING, "")
            let milliseconds =
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            _ = chatstream_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(clamping: max(1, milliseconds)))
            if let caFile { ok = ok && chatstream_curl_set_string(easy, CURLOPT_CAINFO, caFile) == CURLE_OK }
            _ = chatstream_curl_set_callback(easy, CURLOPT_WRITEFUNCTION, upstreamWriteCallback)
            _ = chatstream_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
            _ = chatstream_curl_set_callback(easy, CURLOPT_HEADERFUNCTION, upstreamHeaderCallback)
            _ = chatstream_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
            _ = chatstream_curl_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // libcurl copies the body, so it may go when this returns.
            ok =
                ok
                && body.withUnsafeBytes { raw in
                    let bytes = raw.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
                    return chatstream_curl_set_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes)) == CURLE_OK
                }
            // No `Expect: 100-continue` round trip before the body.
            let lines = headers.map { "\($0.name): \($0.value)" } + ["User-Agent: chatstream-server", "Expect:"]
            for line in lines {
                guard let appended = curl_slist_append(headerList, line) else {
                    ok = false
                    break
                }
                headerList = appended
            }
            _ = chatstream_curl_set_pointer(easy, CURLOPT_HTTPHEADER, headerList.map { UnsafeMutableRawPointer($0) })
            guard ok, curl_multi_add_handle(multi, easy) == CURLM_OK else {
                close()
                throw UpstreamError(message: "libcurl could not set up the request to \(url)")
            }
        }

        deinit { close() }

        /// Runs the transfer until `done` holds or it ended; throws when it failed before that,
        /// after `timeout` without progress, or when `shouldStop` says so.
        func run(shouldStop: () -> Bool, until done: (CurlUpstreamTransfer) -> Bool) throws(UpstreamError) {
            guard let multi else { throw UpstreamError(message: "the upstream request was closed") }
            let deadline = ContinuousClock.now + timeout
            while true {
                var running: Int32 = 0
                curl_multi_perform(multi, &running)
                var left: Int32 = 0
                while let message = curl_multi_info_read(multi, &left) {
                    if message.pointee.msg == CURLMSG_DONE { result = chatstream_curl_message_result(message) }
                }
                if done(self) { return }
                if let result {
                    guard result == CURLE_OK else { throw failure(result) }
                    guard headComplete else {
                        throw UpstreamError(message: "the upstream closed the connection before answering")
                    }
                    return
                }
                if shouldStop() { throw UpstreamError(message: "stopped") }
                if ContinuousClock.now >= deadline {
                    throw UpstreamError(
                        message: headComplete
                            ? "the upstream sent nothing for \(timeout)"
                            : "the upstream did not answer within \(timeout)",
                        timedOut: true)
                }
                curl_multi_poll(multi, nil, 0, 250, nil)
            }
        }

        /// The body bytes received since the last call; nil once the body ended.
        func takeReceived() -> [UInt8]? {
            guard !received.isEmpty else { return nil }
            defer { received.removeAll(keepingCapacity: true) }
            return received
        }

        /// Frees the handles (closing the connection); idempotent.
        func close() {
            guard !released else { return }
            released = true
            if let multi, let easy { curl_multi_remove_handle(multi, easy) }
            if let easy { curl_easy_cleanup(easy) }
            if let multi { curl_multi_cleanup(multi) }
            if let headerList { curl_slist_free_all(headerList) }
            errorBuffer.deallocate()
            easy = nil
            multi = nil
            headerList = nil
        }

        /// The error for a transfer that ended with `code`: libcurl's words for it.
        private func failure(_ code: CURLcode) -> UpstreamError {
            let detail =
                errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
            let timedOut = code == CURLE_OPERATION_TIMEDOUT
            if !headComplete {
                return UpstreamError(message: "cannot reach the upstream: \(detail)", timedOut: timedOut)
            }
            return UpstreamError(message: "the upstream connection broke: \(detail)", timedOut: timedOut)
        }

        /// A head line from libcurl: a status line starts a head (an interim 1xx one is
        /// replaced by the next), the blank line ends it.
        fileprivate func receive(headerLine bytes: UnsafeRawBufferPointer) {
            let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.hasPrefix("HTTP/") {
                let fields = line.split(separator: " ")
                status = fields.count >= 2 ? Int(fields[1]) ?? 0 : 0
                headers = []
            } else if line.isEmpty {
                if status >= 200 { headComplete = true }
            } else if let colon = line.firstIndex(of: ":"), !headComplete {
                headers.append(
                    (
                        line[..<colon].lowercased(),
                        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    ))
            }
        }

        fileprivate func receive(body bytes: UnsafeRawBufferPointer) {
            received.append(contentsOf: bytes)
        }
    }

    /// `CURLOPT_WRITEFUNCTION`: body bytes for the transfer in `context`.
    private let upstreamWriteCallback: chatstream_curl_data_callback = { bytes, size, count, context in
        let transfer = Unmanaged<CurlUpstreamTransfer>.fromOpaque(context!).takeUnretainedValue()
        transfer.receive(body: UnsafeRawBufferPointer(start: bytes, count: size * count))
        return size * count
    }

    /// `CURLOPT_HEADERFUNCTION`: one head line for the transfer in `context`.
    private let upstreamHeaderCallback: chatstream_curl_data_callback = { bytes, size, count, context in
        let transfer = Unmanaged<CurlUpstreamTransfer>.fromOpaque(context!).takeUnretainedValue()
        transfer.receive(headerLine: UnsafeRawBufferPointer(start: bytes, count: size * count))
        return size * count
    }
#endif
