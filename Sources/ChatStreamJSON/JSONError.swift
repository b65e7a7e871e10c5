/// A JSON value that could not be parsed: what went wrong, and where.
///
/// ``byteOffset`` counts bytes from the start of the stream the parser was told about (the
/// `streamOffset` passed with a payload plus the position inside it). ``message`` is yajl's own
/// message for syntax errors, and ChatStream's for the rest.
///
/// Two behaviours to know:
/// - Invalid UTF-8 inside a string or key (including overlong forms and encoded surrogates,
///   which yajl itself lets through) is an error of kind ``Kind/invalidUTF8``.
/// - A lone surrogate escape (`"\ud800"` without its pair) is not an error: it becomes U+FFFD.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case syntax = "syntax error"
            case invalidUTF8 = "invalid UTF-8"
            case incomplete = "incomplete value"
            case multipleValues = "more than one value"
            case depthLimitExceeded = "nesting too deep"
            case valueTooLarge = "value too large"
            case stringTooLong = "string too long"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The bytes are not JSON (yajl's lexical and parse errors, and form feed or vertical tab used as whitespace).
        public static let syntax = Kind(.syntax)
        /// A string or key holds bytes that are not well-formed UTF-8.
        public static let invalidUTF8 = Kind(.invalidUTF8)
        /// The input ended inside a value, or held no value at all.
        public static let incomplete = Kind(.incomplete)
        /// A payload meant to hold one value held more.
        public static let multipleValues = Kind(.multipleValues)
        /// Nesting went past ``JSONConfiguration/maxDepth``.
        public static let depthLimitExceeded = Kind(.depthLimitExceeded)
        /// A value went past ``JSONConfiguration/maxValueBytes``.
        public static let valueTooLarge = Kind(.valueTooLarge)
        /// A string went past ``JSONConfiguration/maxStringBytes``.
        public static let stringTooLong = Kind(.stringTooLong)

        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var kind: Kind
    /// Where, in bytes from the start of the stream: for syntax errors, just past the token yajl
    /// could not accept; for UTF-8 errors, the first bad byte; for limits, where the limit was crossed.
    public var byteOffset: Int
    /// yajl's message, or ChatStream's.
    public var message: String

    public init(_ kind: Kind, byteOffset: Int, message: String) {
        self.kind = kind
        self.byteOffset = byteOffset
        self.message = message
    }

    public var description: String { "JSON \(kind) at byte \(byteOffset): \(message)" }
}
