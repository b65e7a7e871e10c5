// HTTPRequestDecoder: a pure, incremental HTTP/1.x request parser.
//
// Bytes go in with `feed(_:)` in whatever pieces the socket delivers; `next()` hands out events:
// `.expectContinue` once the head of a request with `Expect: 100-continue` and a body is parsed, then
// `.request` when the whole request (body included) is in. Bytes after a request stay in the carry
// buffer, so pipelined requests come out one after another. The buffer is read through an index and
// compacted now and then (never removed from the front byte by byte). The body being read lives in
// its own array, outside the state enum, so each body byte is appended exactly once (were it inside
// the enum payload, every append would copy the body so far: quadratic in the number of reads).
// Every failure is a `HTTPRequestDecodingError` carrying the status to answer with; after one the
// connection must close.
//
// Accepted: request line `METHOD SP target SP HTTP/1.x`, lines ending in CRLF or bare LF, empty lines
// before the request line, `Content-Length` (repeated identical values allowed), `Transfer-Encoding:
// chunked` with extensions and trailers (trailers are read and dropped). Rejected (RFC 9112): obsolete
// line folding, whitespace before a colon, both framings at once, a repeated `Host`,
// `Transfer-Encoding` on HTTP/1.0, a chunk size with anything but hex digits before its extensions,
// other transfer codings (501). Bytes that cannot start a request line (a TLS ClientHello, binary
// noise) are rejected as soon as they arrive, without waiting for a line end or a timeout.
//
// For example, these bytes fed in any pieces:
//     GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi
// `next()` returns `.request` for `GET /a` once its blank line is in, then
// `nil` until the two body bytes of `POST /b` have arrived, then `.request` for it with body `hi`.
// Had the POST carried `Expect: 100-continue`, `.expectContinue` would come first, as soon as its
// head was parsed, so the server can answer `100 Continue` before the client sends the body.

import ChatStream
import ChatStreamHTTP

/// Why a request could not be decoded, and the status code to answer with.
struct HTTPRequestDecodingError: Error, Equatable {
    /// The response status (400, 408, 413, 414, 417, 431, 501, 505).
    var status: Int
    /// What was wrong, for the response body and logs.
    var reason: String
}

/// An incremental HTTP/1.x request parser with a carry buffer.
struct HTTPRequestDecoder {
    /// What `next()` found.
    enum Event {
        /// The head asked for `100 Continue` before sending its body: send it now.
        case expectContinue
        /// A complete request.
        case request(HTTPServerRequest)
    }

    private enum State {
        case head
        case fixedBody(HTTPServerRequest, remaining: Int)
        case chunkSize(HTTPServerRequest)
        case chunkData(HTTPServerRequest, remaining: Int)
        case chunkDataEnd(HTTPServerRequest)
        case trailers(HTTPServerRequest, bytes: Int)
    }

    private let configuration: HTTPServerConfiguration
    private let remoteAddress: String
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Where the search for the end of the head resumes (so a slow head is not rescanned: linear).
    private var scanIndex = 0
    private var state = State.head
    /// The body of the request being read (moved into the request when it completes).
    private var body: [UInt8] = []
    private var pendingContinue = false

    init(configuration: HTTPServerConfiguration, remoteAddress: String = "") {
        self.configuration = configuration
        self.remoteAddress = remoteAddress
    }

    /// Whether no part of a request is buffered (the connection is idle between requests).
    var isIdle: Bool {
        if case .head = state, readIndex == buffer.count { return true }
        return false
    }

    /// How far the request being read has come, for the connection's deadlines.
    enum Progress: Equatable {
        /// Between requests: nothing buffered.
        case idle
        /// Some of a request head is buffered.
        case head
        /// The head is parsed and `received` body bytes are in.
        case body(received: Int)
    }

    /// How far the request being read has come.
    /// The bytes still to come of a body whose length is known now (a `Content-Length` body, or
    /// the current chunk's data); nil otherwise.
    var knownBytesAwaited: Int? {
        switch state {
        case .fixedBody(_, let remaining), .chunkData(_, let remaining):
            max(0, remaining - (buffer.count - readIndex))
        default: nil
        }
    }

    var progress: Progress {
        switch state {
        case .head: readIndex == buffer.count ? .idle : .head
        default: .body(received: body.count)
        }
    }

    /// Appends bytes read from the connection.
    mutating func feed(_ bytes: some Collection<UInt8>) {
        if readIndex > 0 && readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scanIndex = max(0, scanIndex - readIndex)
            readIndex = 0
        } else if readIndex > 64 * 1024 && readIndex > buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            scanIndex = max(0, scanIndex - readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next event the buffered bytes complete, or nil when more bytes are needed.
    mutating func next() throws(HTTPRequestDecodingError) -> Event? {
        while true {
            if pendingContinue {
                pendingContinue = false
                return .expectContinue
            }
            switch state {
            case .head:
                guard let request = try parseHead() else { return nil }
                if let done = try startBody(request) { return .request(done) }
            case .fixedBody(let request, let remaining):
                let available = min(remaining, buffer.count - readIndex)
                body.append(contentsOf: buffer[readIndex..<readIndex + available])
                readIndex += available
                if available == remaining {
                    return finish(request)
                }
                state = .fixedBody(request, remaining: remaining - available)
                return nil
            case .chunkSize(let request):
                guard let line = try nextLine(limit: 4096, tooLong: 400) else { return nil }
                let size = try Self.chunkSize(line)
                if size == 0 {
                    state = .trailers(request, bytes: 0)
                } else {
                    guard body.count + size <= configuration.maxBodyBytes else { throw tooLarge() }
                    state = .chunkData(request, remaining: size)
                }
            case .chunkData(let request, let remaining):
                let available = min(remaining, buffer.count - readIndex)
                body.append(contentsOf: buffer[readIndex..<readIndex + available])
                readIndex += available
                if available == remaining {
                    state = .chunkDataEnd(request)
                } else {
                    state = .chunkData(request, remaining: remaining - available)
                    return nil
                }
            case .chunkDataEnd(let request):
                guard let line = try nextLine(limit: 2, tooLong: 400) else { return nil }
                guard line.isEmpty else { throw bad("chunk data longer than its size") }
                state = .chunkSize(request)
            case .trailers(let request, let bytes):
                let before = readIndex
                guard let line = try nextLine(limit: configuration.maxHeaderBytes, tooLong: 431) else { return nil }
                let total = bytes + (readIndex - before)
                guard total <= configuration.maxHeaderBytes else {
                    throw HTTPRequestDecodingError(status: 431, reason: "trailer section too large")
                }
                if line.isEmpty { return finish(request) }
                state = .trailers(request, bytes: total)
            }
        }
    }

    // MARK: - Head

    /// Parses a complete head if the buffer holds one; nil when more bytes are needed.
    private mutating func parseHead() throws(HTTPRequestDecodingError) -> HTTPServerRequest? {
        // Skip empty lines before the request line (RFC 9112 section 2.2).
        while readIndex < buffer.count, buffer[readIndex] == 0x0D || buffer[readIndex] == 0x0A {
            readIndex += 1
        }
        scanIndex = max(scanIndex, readIndex)
        // Find the empty line that ends the head: "\n\n" or "\n\r\n".
        var end: Int?
        var index = scanIndex
        while index < buffer.count {
            if buffer[index] == 0x0A {
                if index + 1 < buffer.count, buffer[index + 1] == 0x0A {
                    end = index + 2
                    break
                }
                if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A {
                    end = index + 3
                    break
                }
                if index + 2 >= buffer.count { break }  // the terminator may still be arriving
            }
            index += 1
        }
        guard let headEnd = end else {
            scanIndex = index
            try checkRequestLineStart()
            let buffered = buffer.count - readIndex
            if buffered > configuration.maxHeaderBytes {
                let lineEnd = buffer[readIndex...].firstIndex(of: 0x0A) ?? buffer.count
                if lineEnd - readIndex > configuration.maxURILength {
                    throw HTTPRequestDecodingError(status: 414, reason: "request target too long")
                }
                throw HTTPRequestDecodingError(status: 431, reason: "header section too large")
            }
            return nil
        }
        let head = buffer[readIndex..<headEnd]
        readIndex = headEnd
        scanIndex = headEnd
        var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { throw bad("empty request") }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        if parts.count >= 2, parts[1].count > configuration.maxURILength {
            throw HTTPRequestDecodingError(status: 414, reason: "request target too long")
        }
        if head.count > configuration.maxHeaderBytes {
            throw HTTPRequestDecodingError(status: 431, reason: "header section too large")
        }
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { throw bad("malformed request line") }
        guard parts[0].allSatisfy(HTTPHeaderFields.isTokenByte) else { throw bad("invalid method") }
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw bad("invalid request target") }
        let version = try Self.parseVersion(parts[2])
        var headers = HTTPHeaderFields()
        guard lines.count - 1 <= configuration.maxHeaderCount else {
            throw HTTPRequestDecodingError(status: 431, reason: "too many header fields")
        }
        for line in lines.dropFirst() {
            guard let first = line.first, first != 0x20, first != 0x09 else { throw bad("obsolete line folding") }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw bad("header line without colon") }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(HTTPHeaderFields.isTokenByte) else { throw bad("invalid header name") }
            let rawValue = line[(colon + 1)...]
            guard rawValue.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw bad("invalid header value")
            }
            headers.append(
                name: String(decoding: name, as: UTF8.self),
                value: String(trimmed(String(decoding: rawValue, as: UTF8.self)))
            )
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        guard target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://") || target == "*"
        else { throw bad("unsupported request target form") }
        let hosts = headers.values(for: "Host").count
        if version.minor >= 1, hosts == 0 { throw bad("missing Host header") }
        guard hosts <= 1 else { throw bad("repeated Host header") }
        if version.minor == 0, !headers.values(for: "Transfer-Encoding").isEmpty {
            throw bad("Transfer-Encoding on an HTTP/1.0 request")
        }
        return HTTPServerRequest(
            method: String(decoding: parts[0], as: UTF8.self), target: target, headers: headers,
            remoteAddress: remoteAddress, version: version)
    }

    /// Chooses the body framing of a parsed head; returns the request when it has no body.
    private mutating func startBody(_ request: HTTPServerRequest) throws(HTTPRequestDecodingError)
        -> HTTPServerRequest?
    {
        let transferEncodings = request.headers.values(for: "Transfer-Encoding")
        let lengths = request.headers.values(for: "Content-Length")
        let expectsContinue: Bool
        if let expect = request.headers["Expect"], request.version.minor >= 1 {
            guard expect.lowercased() == "100-continue" else {
                throw HTTPRequestDecodingError(status: 417, reason: "unsupported expectation")
            }
            expectsContinue = true
        } else {
            expectsContinue = false
        }
        if !transferEncodings.isEmpty {
            guard lengths.isEmpty else { throw bad("both Content-Length and Transfer-Encoding") }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }.map { trimmed($0).lowercased() }
            guard codings == ["chunked"] else {
                throw HTTPRequestDecodingError(status: 501, reason: "unsupported transfer coding")
            }
            state = .chunkSize(request)
            pendingContinue = expectsContinue
            return nil
        }
        if !lengths.isEmpty {
            let values = Set(lengths.flatMap { $0.split(separator: ",") }.map { String(trimmed($0)) })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.count <= 18,
                text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(text)
            else { throw bad("invalid Content-Length") }
            guard length <= configuration.maxBodyBytes else { throw tooLarge() }
            if length > 0 {
                state = .fixedBody(request, remaining: length)
                pendingContinue = expectsContinue
                return nil
            }
        }
        return request
    }

    private static func parseVersion(_ text: ArraySlice<UInt8>) throws(HTTPRequestDecodingError)
        -> (major: Int, minor: Int)
    {
        let bytes = Array(text)
        guard bytes.count == 8, bytes.starts(with: Array("HTTP/".utf8)), bytes[6] == UInt8(ascii: "."),
            let major = Self.digit(bytes[5]), let minor = Self.digit(bytes[7])
        else { throw HTTPRequestDecodingError(status: 400, reason: "malformed HTTP version") }
        guard major == 1 else { throw HTTPRequestDecodingError(status: 505, reason: "unsupported HTTP version") }
        return (major, minor)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (0x30...0x39).contains(byte) ? Int(byte - 0x30) : nil
    }

    // MARK: - Helpers

    /// The next line (without its CRLF or LF) or nil if it is not complete; throws when it exceeds `limit`.
    private mutating func nextLine(limit: Int, tooLong status: Int) throws(HTTPRequestDecodingError)
        -> ArraySlice<UInt8>?
    {
        guard let newline = buffer[readIndex...].firstIndex(of: 0x0A) else {
            if buffer.count - readIndex > limit + 1 {
                throw HTTPRequestDecodingError(status: status, reason: "line too long")
            }
            return nil
        }
        var line = buffer[readIndex..<newline]
        if line.last == 0x0D { line = line.dropLast() }
        guard line.count <= limit else { throw HTTPRequestDecodingError(status: status, reason: "line too long") }
        readIndex = newline + 1
        return line
    }

    private mutating func finish(_ request: HTTPServerRequest) -> Event {
        var request = request
        state = .head
        scanIndex = readIndex
        swap(&request.body, &body)
        return .request(request)
    }

    /// The size of a chunk-size line (RFC 9112 section 7.1): hex digits, then nothing or extensions
    /// (`;`, with optional whitespace before it). Leading whitespace and any other trailing byte are 400.
    private static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPRequestDecodingError) -> Int {
        let digits = line.prefix { QueryDecoding.hexValue($0) != nil }
        let rest = line[digits.endIndex...].drop { $0 == 0x20 || $0 == 0x09 }
        guard !digits.isEmpty, rest.isEmpty ? digits.endIndex == line.endIndex : rest.first == UInt8(ascii: ";")
        else {
            throw HTTPRequestDecodingError(status: 400, reason: "invalid chunk size line")
        }
        guard digits.count <= 15 else { throw HTTPRequestDecodingError(status: 400, reason: "chunk size too large") }
        var size = 0
        for byte in digits { size = size << 4 | Int(QueryDecoding.hexValue(byte)!) }
        return size
    }

    /// Rejects at once bytes that cannot begin a request line: the method is a token followed by a
    /// space, so any other byte before the first space (a TLS record's 0x16, binary noise) is not HTTP.
    private func checkRequestLineStart() throws(HTTPRequestDecodingError) {
        var index = readIndex
        while index < buffer.count, index - readIndex <= Self.longestMethod {
            let byte = buffer[index]
            if byte == 0x20 { return }
            guard HTTPHeaderFields.isTokenByte(byte) else {
                throw bad("not an HTTP request (byte \(byte) in the method)")
            }
            index += 1
        }
        if index - readIndex > Self.longestMethod { throw bad("not an HTTP request (method too long)") }
    }

    /// The longest method accepted (RFC 9110 methods are short; longer text is not a request line).
    private static let longestMethod = 32

    private func bad(_ reason: String) -> HTTPRequestDecodingError {
        HTTPRequestDecodingError(status: 400, reason: reason)
    }

    private func tooLarge() -> HTTPRequestDecodingError {
        HTTPRequestDecodingError(status: 413, reason: "request body too large")
    }
}
