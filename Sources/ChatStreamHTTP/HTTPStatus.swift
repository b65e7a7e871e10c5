// HTTPStatus: what the package knows of HTTP status codes (reason phrases, which forbid a body),
// shared by the server's writer and anyone else who writes a status line.

/// Reason phrases for HTTP status codes.
public enum HTTPStatus {
    /// The standard reason phrase for `code` ("OK", "Not Found", ...), or a generic one by class.
    public static func reasonPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default:
            switch code / 100 {
            case 1: "Informational"
            case 2: "Success"
            case 3: "Redirection"
            case 4: "Client Error"
            default: "Server Error"
            }
        }
    }

    /// Whether a response with this status never carries a body (1xx, 204, 304).
    package static func forbidsBody(_ code: Int) -> Bool {
        (100..<200).contains(code) || code == 204 || code == 304
    }
}
