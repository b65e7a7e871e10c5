/// An error from one of the framers, with the byte offset in the stream where it arose: a line or
/// event past its limit, a line without the framing's shape, a JSON stream of the wrong shape
/// (no `[`, junk between elements, data after `]`), a JSON value past its size or depth limit,
/// or a stream that ended before its framing was complete.
///
/// Match on ``kind``; new kinds may be added without breaking callers.
///
/// ```swift
/// do {
///     try decoder.feed(bytes, into: &events)
/// } catch let error as FramingError where error.kind == .lineTooLong {
///     print("line too long at byte \(error.byteOffset)")
/// }
/// ```
public struct FramingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable {
            case lineTooLong
            case eventTooLarge
            case malformedLine
            case truncated
            case expectedArrayStart
            case unexpectedByte
            case trailingData
            case depthLimitExceeded
            case valueTooLarge
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A line grew past the decoder's `maxLineBytes` before its line ending arrived.
        public static let lineTooLong = Kind(.lineTooLong)
        /// A server-sent event's joined data grew past `maxEventBytes`.
        public static let eventTooLarge = Kind(.eventTooLarge)
        /// A line that does not have the framing's shape (a data stream v4 line without `CODE:`).
        public static let malformedLine = Kind(.malformedLine)
        /// The stream ended inside an event or line (only thrown when the caller asked for it), or
        /// before a JSON array's `]` or inside a JSON value.
        public static let truncated = Kind(.truncated)
        /// A JSON array stream did not start with `[`.
        public static let expectedArrayStart = Kind(.expectedArrayStart)
        /// A byte that cannot appear here in a JSON stream: junk between elements or values, a
        /// missing `,`, a trailing comma.
        public static let unexpectedByte = Kind(.unexpectedByte)
        /// Something other than whitespace after a JSON array's closing `]`.
        public static let trailingData = Kind(.trailingData)
        /// A JSON value nests deeper than ``FramingConfiguration/maxDepth``.
        public static let depthLimitExceeded = Kind(.depthLimitExceeded)
        /// A JSON value is longer than ``FramingConfiguration/maxValueBytes``.
        public static let valueTooLarge = Kind(.valueTooLarge)

        public var description: String {
            switch base {
            case .lineTooLong: "line too long"
            case .eventTooLarge: "event too large"
            case .malformedLine: "malformed line"
            case .truncated: "truncated stream"
            case .expectedArrayStart: "expected array start"
            case .unexpectedByte: "unexpected byte"
            case .trailingData: "trailing data"
            case .depthLimitExceeded: "depth limit exceeded"
            case .valueTooLarge: "value too large"
            }
        }
    }

    /// What went wrong.
    public let kind: Kind
    /// Offset, from the first byte of the stream (counting a skipped BOM), where the problem was found.
    public let byteOffset: Int
    /// A human-readable explanation.
    public let message: String

    /// Makes an error; decoders create these on the error path only.
    public init(_ kind: Kind, byteOffset: Int, message: String) {
        self.kind = kind
        self.byteOffset = byteOffset
        self.message = message
    }

    public var description: String { "\(kind) at byte \(byteOffset): \(message)" }
}

extension FramingError {
    /// The framers' shorthand (also the JSON framers' in ChatStream).
    package init(_ kind: Kind, at byteOffset: Int, _ message: String) {
        self.init(kind, byteOffset: byteOffset, message: message)
    }

    @inline(never)
    static func lineTooLong(lineStart: Int, limit: Int) -> FramingError {
        FramingError(
            .lineTooLong, byteOffset: lineStart + limit,
            message: "the line starting at byte \(lineStart) is longer than maxLineBytes (\(limit))")
    }

    @inline(never)
    static func eventTooLarge(blockStart: Int, at offset: Int, limit: Int) -> FramingError {
        FramingError(
            .eventTooLarge, byteOffset: offset,
            message: "the event starting at byte \(blockStart) has more than maxEventBytes (\(limit)) of data")
    }

    @inline(never)
    static func malformed(at offset: Int, _ message: String) -> FramingError {
        FramingError(.malformedLine, byteOffset: offset, message: message)
    }
}
