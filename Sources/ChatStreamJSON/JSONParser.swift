// JSONParser: the bridge to yajl, its state and its public face.
//
// What: one yajl handle per parser, configured with `yajl_allow_multiple_values` and reused for
// every payload of a stream, filling a reusable `JSONTape` that `JSONElement` reads.
// Why: a fresh handle costs several allocations, and framing has already found each payload's
// boundaries, so each payload reaches yajl in one call and no token spans two calls.
//
// The work is in three more files: +Driving (one `yajl_parse` call per payload, the checks
// before it and the unusual endings after it), +Callbacks (yajl's callbacks writing the tape)
// and +Strings (where a string's bytes come from: the input, yajl's buffer or our unescaper).
//
// For example, one parser reads `{"name":"Ada"}` and then `[1,2]`: the first call fills the
// tape with object, key `name`, string `Ada`, close; the second resets the tape and reuses the
// same handle.

internal import CYajl
import ChatStreamBytes

/// A JSON parser over yajl that reads one complete value at a time into a reusable tape.
///
/// Use one parser per stream; it is not thread-safe. Each call parses exactly one JSON value
/// (surrounding whitespace allowed); anything else throws a ``JSONError`` with the byte offset.
///
/// ```swift
/// let parser = JSONParser()
/// let value = try parser.parseValue(Array(#"{"a":[1,2.5,"x"]}"#.utf8))
/// let name = try parser.parse(Array(#"{"name":"Ada"}"#.utf8)) { $0["name"]?.string }
/// ```
public final class JSONParser {
    /// The limits this parser enforces.
    public let configuration: JSONConfiguration

    @exclusivity(unchecked) var handle: yajl_handle!
    @usableFromInline let tape = JSONTape()

    // State of the parse in progress.
    @exclusivity(unchecked) var input = UnsafeRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) var streamOffset = 0
    @exclusivity(unchecked) var depth = 0
    @exclusivity(unchecked) var completedValues = 0
    /// Where in the input the first top-level value ended (the input's end when yajl reported it
    /// during the trailing-space call).
    @exclusivity(unchecked) var firstValueEnd = 0
    @exclusivity(unchecked) var failure: JSONError?

    /// A parser with these limits.
    public init(configuration: JSONConfiguration = JSONConfiguration()) {
        self.configuration = configuration
        handle = JSONParser.makeHandle(context: Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { yajl_free(handle) }

    static func makeHandle(context: UnsafeMutableRawPointer?) -> yajl_handle {
        guard let handle = yajl_alloc(callbacks, nil, context) else {
            fatalError("yajl_alloc failed: out of memory")
        }
        _ = chatstream_yajl_allow_multiple_values(handle)
        // Every string and key is checked as strict UTF-8 in `onString` (yajl's own check lets
        // overlong forms and encoded surrogates through), so yajl need not check them first.
        _ = chatstream_yajl_dont_validate_strings(handle)
        return handle
    }

    func resetHandle() {
        yajl_free(handle)
        handle = JSONParser.makeHandle(context: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Parses one JSON value and calls `body` with its root element.
    ///
    /// - Parameters:
    ///   - bytes: the complete text of one value: an `Array`, an `ArraySlice`, `Data` or a
    ///     string's `utf8` is read where it lies; any other collection is copied first.
    ///   - streamOffset: where `bytes` start in the whole stream; error offsets count from there.
    ///   - body: reads what it needs; the element is valid only during the call.
    /// - Throws: ``JSONError`` when `bytes` are not exactly one JSON value within the limits,
    ///   and whatever `body` throws.
    @inlinable
    public func parse<R>(
        _ bytes: some Collection<UInt8>, streamOffset: Int = 0, _ body: (JSONElement) throws -> R
    ) throws -> R {
        try Self.withContiguous(bytes) { raw in
            try fill(raw, streamOffset: streamOffset)
            return try body(JSONElement(tape: tape, index: 0))
        }
    }

    /// Parses one JSON value into a tree.
    ///
    /// - Parameters:
    ///   - bytes: the complete text of one value, read as ``parse(_:streamOffset:_:)`` reads it.
    ///   - streamOffset: where `bytes` start in the whole stream; error offsets count from there.
    /// - Throws: ``JSONError`` when `bytes` are not exactly one JSON value within the limits.
    @inlinable
    public func parseValue(_ bytes: some Collection<UInt8>, streamOffset: Int = 0) throws -> JSONTree {
        try Self.withContiguous(bytes) { raw in
            try fill(raw, streamOffset: streamOffset)
            return JSONElement(tape: tape, index: 0).jsonValue
        }
    }

    /// Parses one JSON value from a unit's lent bytes (a framer's `FramedUnit` data), as
    /// ``parse(_:streamOffset:_:)`` does; the form a dialect's hot path calls.
    @_spi(Dialects) @inlinable
    public func parse<R>(
        _ bytes: UnsafeRawBufferPointer, streamOffset: Int = 0, _ body: (JSONElement) throws -> R
    ) throws -> R {
        try fill(bytes, streamOffset: streamOffset)
        return try body(JSONElement(tape: tape, index: 0))
    }

    /// Parses one JSON value from lent bytes (a framer view's `withData`, `withBytes` or
    /// `withPayload`), as ``parse(_:streamOffset:_:)`` does.
    @_spi(Dialects)
    public func parse<R>(_ bytes: RawSpan, streamOffset: Int = 0, _ body: (JSONElement) throws -> R) throws -> R {
        try bytes.withUnsafeBytes { try parse($0, streamOffset: streamOffset, body) }
    }

    /// Calls `body` with the bytes of `bytes`, without a copy when the collection is contiguous.
    @inlinable @inline(__always)
    static func withContiguous<R>(
        _ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        if let result = try bytes.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return try Array(bytes).withUnsafeBytes(body)
    }
}
