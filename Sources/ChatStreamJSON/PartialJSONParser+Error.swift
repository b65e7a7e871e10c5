/// An error from ``PartialJSONParser``: invalid JSON, a limit, or input that ended too soon.
///
/// ```swift
/// do {
///     let input = try parser.finish()
/// } catch let error as PartialJSONError where error.kind == .truncated {
///     print("incomplete tool input at byte \(error.byteOffset): \(error.message)")
/// }
/// ```
public struct PartialJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Base: Sendable, Hashable {
        case unexpectedByte, invalidEscape, controlCharacterInString, invalidUTF8, invalidNumber
        case invalidLiteral, trailingData, truncated, depthLimitExceeded, sizeLimitExceeded
    }

    /// What went wrong; compare with the static values (more may be added).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A byte that cannot appear here (`{"a" 1}`, `]` at the start, a missing comma).
        public static let unexpectedByte = Kind(.unexpectedByte)
        /// A backslash escape that JSON does not have (`\x`), or a `\u` with a non-hex digit.
        public static let invalidEscape = Kind(.invalidEscape)
        /// An unescaped control character (below U+0020) inside a string.
        public static let controlCharacterInString = Kind(.controlCharacterInString)
        /// Bytes that are not valid UTF-8 inside a string.
        public static let invalidUTF8 = Kind(.invalidUTF8)
        /// A malformed number (`-x`, `1.e5`).
        public static let invalidNumber = Kind(.invalidNumber)
        /// A misspelled `true`, `false` or `null`.
        public static let invalidLiteral = Kind(.invalidLiteral)
        /// Something other than whitespace after the complete value.
        public static let trailingData = Kind(.trailingData)
        /// The input ended before the value was complete (from ``PartialJSONParser/finish()``).
        public static let truncated = Kind(.truncated)
        /// Containers nest deeper than the parser's `maxDepth`.
        public static let depthLimitExceeded = Kind(.depthLimitExceeded)
        /// More input than the parser's `maxBytes`.
        public static let sizeLimitExceeded = Kind(.sizeLimitExceeded)

        /// The kind's name, as in the static values.
        public var description: String {
            switch base {
            case .unexpectedByte: "unexpectedByte"
            case .invalidEscape: "invalidEscape"
            case .controlCharacterInString: "controlCharacterInString"
            case .invalidUTF8: "invalidUTF8"
            case .invalidNumber: "invalidNumber"
            case .invalidLiteral: "invalidLiteral"
            case .trailingData: "trailingData"
            case .truncated: "truncated"
            case .depthLimitExceeded: "depthLimitExceeded"
            case .sizeLimitExceeded: "sizeLimitExceeded"
            }
        }
    }

    /// What went wrong.
    public let kind: Kind
    /// The offset of the offending byte in the whole input (for `.truncated`: the input's length).
    public let byteOffset: Int
    /// A readable explanation, naming what was expected or is missing.
    public let message: String

    init(_ kind: Kind, at byteOffset: Int, _ message: String) {
        self.kind = kind
        self.byteOffset = byteOffset
        self.message = message
    }

    /// The message with its byte offset.
    public var description: String { "invalid JSON at byte \(byteOffset): \(message)" }
}
