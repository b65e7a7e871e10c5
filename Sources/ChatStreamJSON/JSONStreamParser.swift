/// A push parser for JSON text that arrives in pieces of any size: a stream of top-level
/// values (whitespace-separated, as in concatenated JSON), each handed over as soon as it is
/// complete.
///
/// Boundaries are found first by a byte scan with a carry buffer (the scanner that ChatStream's
/// `JSONSequenceFramer` uses too) and each complete value is then parsed by yajl in one call, so
/// a long string split into many pieces costs linear time. Errors are ``JSONError``s: a byte that
/// cannot start a value is ``JSONError/Kind/syntax``, a stream that ends inside a value
/// ``JSONError/Kind/incomplete``; after one, every later call throws it again.
///
/// ```swift
/// var stream = JSONStreamParser()
/// for piece in pieces {
///     for value in try stream.feed(piece) { print(value) }
/// }
/// for value in try stream.finish() { print(value) }
/// ```

public struct JSONStreamParser {
    private var carry: JSONFramerCarry
    private let parser: JSONParser
    /// Bytes fed before the current piece.
    private var consumed = 0
    private var failure: (any Error)?

    /// A stream parser with these limits.
    public init(configuration: JSONConfiguration = JSONConfiguration()) {
        carry = JSONFramerCarry(maxDepth: configuration.maxDepth, maxValueBytes: configuration.maxValueBytes)
        parser = JSONParser(configuration: configuration)
    }

    /// Feeds the next piece and calls `onValue` with the root of each value it completes (valid
    /// only during the call).
    @_spi(Dialects)
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onValue: (JSONElement) throws -> Void) throws {
        if let failure { throw failure }
        let parser = self.parser
        let count = bytes.count
        var i = 0
        do {
            while i < count {
                if !carry.isInsideValue && isJSONWhitespace(bytes[i]) {
                    i += 1
                    continue
                }
                guard
                    let end = try carry.advance(
                        bytes, from: i, streamOffset: consumed,
                        { value, offset in try parser.parse(value, streamOffset: offset, onValue) })
                else { break }
                i = end
            }
        } catch {
            throw remember(error)
        }
        consumed += count
    }

    /// Feeds the next piece (any collection of bytes; an `Array` or `Data` is read where it lies)
    /// and returns the values it completes.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws -> [JSONTree] {
        var values: [JSONTree] = []
        try JSONParser.withContiguous(bytes) { buffer in try feed(buffer) { values.append($0.jsonValue) } }
        return values
    }

    /// Ends the input: returns a value still pending (a top-level number), or throws when the
    /// input ended inside a value.
    public mutating func finish() throws -> [JSONTree] {
        if let failure { throw failure }
        guard carry.isInsideValue else { return [] }
        guard carry.scanner.endsAtEndOfInput else {
            throw remember(
                JSONError(
                    .incomplete, byteOffset: consumed,
                    message: "stream ended inside a value that starts at byte \(carry.valueOffset)"))
        }
        var values: [JSONTree] = []
        let parser = self.parser
        do {
            try carry.deliverCarry { value, offset in values.append(try parser.parseValue(value, streamOffset: offset))
            }
        } catch {
            throw remember(error)
        }
        return values
    }

    /// Keeps `error` for every later call, the scanner's as a ``JSONError``.
    private mutating func remember(_ error: any Error) -> any Error {
        let kept = (error as? JSONValueScanner.Failure).map { JSONError($0) as any Error } ?? error
        failure = kept
        return kept
    }
}

extension JSONError {
    /// The value scanner's failure as a JSON error: a byte that cannot start a value is a syntax error.
    init(_ failure: JSONValueScanner.Failure) {
        let kind: Kind =
            switch failure.kind {
            case .unexpectedByte: .syntax
            case .depthLimitExceeded: .depthLimitExceeded
            case .valueTooLarge: .valueTooLarge
            }
        self.init(kind, byteOffset: failure.byteOffset, message: failure.message)
    }
}
