// HTTP/1.1 response parsing, shared by the client's PlainHTTPTransport and the server's upstream
// requests (UpstreamHTTP): the response head (status line and header fields, RFC 9112 sections 4
// and 5) and the body's framing (Content-Length, chunked, or until the connection closes: section
// 6.3), decoded a byte at a time where it must be so that any split of the input across reads
// decodes the same. The chunked transfer coding itself is ChunkedBodyDecoder.swift's.
//
// Every refusal is an HTTPResponseParseError that names what was wrong and the byte offset where
// (from the start of the response for the head, from the start of the body for the chunked
// coding); each caller turns it into its own error. Nothing here touches a socket: the caller
// feeds it what it reads.
//
// Example: `HTTPResponseHeadParser(maxHeaderBytes: 64 << 10).parse(Array("HTTP/1.1 200 OK\r\n\r\n".utf8))`
// gives status 200, no fields, the body from byte 19.

/// Why a response could not be parsed: what was wrong and where.
package struct HTTPResponseParseError: Error, Sendable {
    package enum Kind: Sendable {
        /// Not valid HTTP/1.1.
        case invalid
        /// The head's header fields pass the caller's limit.
        case headTooLarge
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// A parsed response head: the final one (interim 1xx heads are skipped by ``HTTPResponseHeadParser``).
package struct HTTPResponseHead: Sendable {
    package var status: Int
    package var headers: HTTPHeaderFields
}

/// Finds and parses an HTTP/1.1 response head at the start of a byte buffer.
///
/// ```swift
/// var parser = HTTPResponseHeadParser(maxHeaderBytes: 64 << 10)
/// if let (head, bodyStart) = try parser.parse(buffer) { print(head.status, buffer[bodyStart...].count) }
/// ```
package struct HTTPResponseHeadParser {
    /// The most bytes of header field lines (line breaks included) in one head.
    package let maxHeaderBytes: Int
    /// Where the head being looked for starts (past the interim heads already skipped).
    private var headStart = 0
    /// How far the search for the head's end has got (so each read is scanned once).
    private var scanned = 0

    package init(maxHeaderBytes: Int) { self.maxHeaderBytes = maxHeaderBytes }

    /// The final head and the offset of the first body byte, or nil when `buffer` (everything
    /// received so far, from the response's first byte) does not yet hold a whole final head.
    ///
    /// - Throws: ``HTTPResponseParseError`` (naming the problem and its byte offset).
    package mutating func parse(_ buffer: [UInt8]) throws -> (head: HTTPResponseHead, bodyStart: Int)? {
        while true {
            guard let end = findEnd(buffer) else {
                // The status line may be as long as it likes within the limit too.
                if buffer.count - headStart > maxHeaderBytes + 8 << 10 {
                    throw HTTPResponseParseError(
                        .headTooLarge,
                        "the response head has more than \(maxHeaderBytes) bytes of header fields")
                }
                return nil
            }
            let head = try Self.parseHead(buffer, from: headStart, to: end, maxHeaderBytes: maxHeaderBytes)
            headStart = end
            scanned = end
            // 1xx heads are interim (100 Continue, 103 Early Hints): the final one follows.
            if (100..<200).contains(head.status) && head.status != 101 { continue }
            return (head, end)
        }
    }

    /// The offset just past the blank line that ends the head starting at `headStart`, if there is one.
    private mutating func findEnd(_ buffer: [UInt8]) -> Int? {
        var index = max(scanned, headStart)
        while index < buffer.count {
            if buffer[index] == 0x0A {
                // A line ends here; the head ends when the next line is empty (LF or CR LF).
                if index + 1 < buffer.count, buffer[index + 1] == 0x0A { return index + 2 }
                if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A { return index + 3 }
                if index + 2 >= buffer.count {
                    scanned = index
                    return nil
                }
            }
            index += 1
        }
        scanned = index
        return nil
    }

    /// Parses the head in `buffer[start..<end]` (which ends with its blank line).
    package static func parseHead(_ buffer: [UInt8], from start: Int, to end: Int, maxHeaderBytes: Int) throws
        -> HTTPResponseHead
    {
        var lines: [(start: Int, end: Int)] = []
        var lineStart = start
        for index in start..<end where buffer[index] == 0x0A {
            var lineEnd = index
            if lineEnd > lineStart, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            lines.append((lineStart, lineEnd))
            lineStart = index + 1
        }
        // The last line is the blank one.
        lines.removeLast()
        guard let statusLine = lines.first else {
            throw HTTPResponseParseError(.invalid, "the response has no status line (byte \(start))")
        }
        let status = try parseStatusLine(buffer, statusLine.start, statusLine.end)
        var headers = HTTPHeaderFields()
        var fieldBytes = 0
        for line in lines.dropFirst() {
            fieldBytes += line.end - line.start + 2
            guard fieldBytes <= maxHeaderBytes else {
                throw HTTPResponseParseError(
                    .headTooLarge,
                    "the response head has more than \(maxHeaderBytes) bytes of header fields")
            }
            let first = buffer[line.start]
            if first == 0x20 || first == 0x09 {
                throw HTTPResponseParseError(
                    .invalid,
                    "obsolete line folding (a header line starting with whitespace) at byte \(line.start) of the response"
                )
            }
            guard let colon = buffer[line.start..<line.end].firstIndex(of: UInt8(ascii: ":")) else {
                throw HTTPResponseParseError(
                    .invalid,
                    "a header line without a colon at byte \(line.start) of the response: \"\(text(buffer, line.start, line.end))\""
                )
            }
            guard colon > line.start else {
                throw HTTPResponseParseError(
                    .invalid, "a header field with an empty name at byte \(line.start) of the response")
            }
            if let bad = buffer[line.start..<colon].firstIndex(where: { !HTTPHeaderFields.isTokenByte($0) }) {
                throw HTTPResponseParseError(
                    .invalid,
                    "byte \(HTTPByteName.of(buffer[bad])) in a header field name at byte \(bad) of the response")
            }
            if let bad = buffer[(colon + 1)..<line.end].firstIndex(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
                throw HTTPResponseParseError(
                    .invalid,
                    "byte \(HTTPByteName.of(buffer[bad])) in a header field value at byte \(bad) of the response")
            }
            var valueStart = colon + 1
            var valueEnd = line.end
            while valueStart < valueEnd, buffer[valueStart] == 0x20 || buffer[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, buffer[valueEnd - 1] == 0x20 || buffer[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            headers.append(
                name: String(decoding: buffer[line.start..<colon], as: UTF8.self),
                value: String(decoding: buffer[valueStart..<valueEnd], as: UTF8.self))
        }
        return HTTPResponseHead(status: status, headers: headers)
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason]`: the status code.
    private static func parseStatusLine(_ buffer: [UInt8], _ start: Int, _ end: Int) throws -> Int {
        let prefix = Array("HTTP/1.".utf8)
        guard end - start >= 12, Array(buffer[start..<(start + 7)]) == prefix,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buffer[start + 7]), buffer[start + 8] == 0x20
        else {
            throw HTTPResponseParseError(
                .invalid,
                "the status line at byte \(start) is not \"HTTP/1.x <code> <reason>\": \"\(text(buffer, start, end))\"")
        }
        var status = 0
        for offset in 9..<12 {
            let byte = buffer[start + offset]
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                throw HTTPResponseParseError(
                    .invalid,
                    "the status code at byte \(start + 9) is not three digits: \"\(text(buffer, start, end))\"")
            }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard end - start == 12 || buffer[start + 12] == 0x20 else {
            throw HTTPResponseParseError(
                .invalid,
                "the status code at byte \(start + 9) is not three digits: \"\(text(buffer, start, end))\"")
        }
        guard status >= 100 else {
            throw HTTPResponseParseError(.invalid, "status code \(status) at byte \(start + 9) is below 100")
        }
        return status
    }

    /// The line at `start..<end` for an error message (its first 200 bytes).
    private static func text(_ buffer: [UInt8], _ start: Int, _ end: Int) -> String {
        String(decoding: buffer[start..<min(end, start + 200)], as: UTF8.self)
    }
}

/// How a response body is delimited (RFC 9112 section 6.3).
package enum HTTPBodyFraming: Equatable, Sendable {
    /// No body (a `HEAD` request, 1xx, 204, 304).
    case none
    /// Exactly this many bytes.
    case length(Int)
    /// The chunked transfer coding.
    case chunked
    /// Every byte until the server closes the connection.
    case untilClose

    /// The framing of a response with `head` to a request of `method`.
    ///
    /// - Throws: ``HTTPResponseParseError`` for an invalid or conflicting `Content-Length`.
    package init(head: HTTPResponseHead, method: String) throws {
        if method == "HEAD" || head.status == 204 || head.status == 304 || (100..<200).contains(head.status) {
            self = .none
            return
        }
        if let last = head.headers.listElements("Transfer-Encoding").last {
            // A transfer coding other than chunked last: the body runs to the close.
            self = HTTPHeaderFields.namesEqual(last, "chunked") ? .chunked : .untilClose
            return
        }
        let lengths = Set(
            head.headers.values(for: "Content-Length").flatMap { $0.split(separator: ",") }
                .map { String(HTTPHeaderFields.trimmingSpaces($0)) })
        guard let first = lengths.first else {
            self = .untilClose
            return
        }
        guard lengths.count == 1 else {
            throw HTTPResponseParseError(
                .invalid, "the response has conflicting Content-Length values: \(lengths.sorted())")
        }
        guard !first.isEmpty, first.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let length = Int(first) else {
            throw HTTPResponseParseError(.invalid, "the response's Content-Length \"\(first)\" is not a number")
        }
        self = .length(length)
    }
}

/// A byte as people read it in an error message: `"a"` for printable ASCII, `0x0D` otherwise.
package enum HTTPByteName {
    package static func of(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "\"\(Character(Unicode.Scalar(byte)))\"" : String(format0x: byte)
    }
}

extension String {
    fileprivate init(format0x byte: UInt8) {
        let digits = Array("0123456789ABCDEF")
        self = "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }
}
