import ChatStreamFraming

/// A push parser for JSON text that arrives in pieces of any size: a stream of top-level
/// values (whitespace-separated, as in concatenated JSON), each handed over as soon as it is
/// complete.
///
/// Boundaries are found first by a byte scan with a carry buffer (``JSONSequenceFramer``) and
/// each complete value is then parsed by yajl in one call, so a long string split into many
/// pieces costs linear time.
///
/// ```swift
/// var stream = JSONStreamParser()
/// for piece in pieces {
///     for value in try stream.feed(piece) { print(value) }
/// }
/// for value in try stream.finish() { print(value) }
/// ```

public struct JSONStreamParser {
    private var framer: JSONSequenceFramer
    private let parser: JSONParser

    /// A stream parser with these limits.
    public init(configuration: JSONConfiguration = JSONConfiguration()) {
        framer = JSONSequenceFramer(maxDepth: configuration.maxDepth, maxValueBytes: configuration.maxValueBytes)
        parser = JSONParser(configuration: configuration)
    }

    /// Feeds the next piece and calls `onValue` with the root of each value it completes (valid
    /// only during the call).
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onValue: (JSONElement) throws -> Void) throws {
        let parser = self.parser
        try framer.feed(bytes) { value, offset in try parser.parse(value, streamOffset: offset, onValue) }
    }

    /// Feeds the next piece and returns the values it completes.
    public mutating func feed(_ bytes: [UInt8]) throws -> [JSONTree] {
        var values: [JSONTree] = []
        try bytes.withUnsafeBytes { buffer in try feed(buffer) { values.append($0.jsonValue) } }
        return values
    }

    /// Ends the input: returns a value still pending (a top-level number), or throws when the
    /// input ended inside a value.
    public mutating func finish() throws -> [JSONTree] {
        var values: [JSONTree] = []
        let parser = self.parser
        try framer.finish { value, offset in values.append(try parser.parseValue(value, streamOffset: offset)) }
        return values
    }
}
