/// Why a stream of events could not be read to its end.
///
/// Thrown by decoders and their async sequences. The message assembled so far is never lost:
/// ``MessageAssembler`` keeps it and marks it with this error.
public struct StreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case malformed, truncated, remote, limitExceeded = "limit exceeded"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// An event could not be decoded (bad JSON, a required field missing or of the wrong type).
        public static let malformed = Kind(.malformed)
        /// The input ended before the stream's terminator.
        public static let truncated = Kind(.truncated)
        /// The stream itself carried an error (``StreamEvent/error(_:)``).
        public static let remote = Kind(.remote)
        /// A configured size limit was exceeded.
        public static let limitExceeded = Kind(.limitExceeded)

        public var description: String { base.rawValue }
    }

    public var kind: Kind
    /// What happened, for people.
    public var message: String
    /// Where in the stream, in bytes from its start, when known.
    public var byteOffset: Int?
    /// The wire event or chunk type involved (`text-delta`, `content_block_delta`), when known.
    public var eventType: String?
    /// The field involved (`delta`, `choices[0].delta.tool_calls`), when known.
    public var field: String?
    /// The server's error code, for ``Kind/remote`` errors that carried one.
    public var code: String?

    public init(
        _ kind: Kind, message: String, byteOffset: Int? = nil, eventType: String? = nil, field: String? = nil,
        code: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.byteOffset = byteOffset
        self.eventType = eventType
        self.field = field
        self.code = code
    }

    public var description: String {
        var text = "stream \(kind)"
        if let byteOffset { text += " at byte \(byteOffset)" }
        if let eventType { text += " in \(eventType) event" }
        if let field { text += ", field \(field)" }
        if let code { text += " [\(code)]" }
        return text + ": " + message
    }

    /// The error as a stream-carried error value (the shape `--output message --json` prints).
    public var info: StreamErrorInfo {
        switch kind {
        case .remote: return StreamErrorInfo(code: code, message: message)
        case .truncated: return StreamErrorInfo(code: "STREAM_TRUNCATED", message: description)
        case .limitExceeded: return StreamErrorInfo(code: "STREAM_LIMIT_EXCEEDED", message: description)
        default: return StreamErrorInfo(code: "STREAM_MALFORMED", message: description)
        }
    }
}
