/// Anything fed a stream's bytes in pieces of any size that gives what it decodes as owned
/// values: the one vocabulary of the package's framers (``StreamFramer``) and of ChatStream's
/// decoders (`StreamDecoder`, `AnyStreamDecoder`, `MessageDecoder`, `ConversationEventDecoder`).
///
/// Two verbs: ``feed(_:into:)`` takes the next piece (any collection of bytes; an `Array`, a
/// `Data` or an `ArraySlice` is read where it lies) and appends the outputs it completes;
/// ``finish(into:)`` ends the stream, appends what the end completes, and says what was dropped
/// unfinished. ``feed(_:)`` and ``finish()`` return the outputs instead. What a decoder gives
/// never depends on how its input was cut.
///
/// ```swift
/// var framer = NDJSONDecoder(configuration: .default)
/// var lines: [NDJSONLine] = []
/// try framer.feed(Array("{\"a\":1}\n{\"b\"".utf8), into: &lines)   // one line; `{"b"` waits
/// let end = try framer.finish(into: &lines)                        // `{"b"`, at byte 8
/// print(lines.count, end.totalBytes)                               // 2 12
/// ```
public protocol IncrementalDecoder {
    /// What the decoder gives, as an owned value (a framer's unit, a stream event, a message).
    associatedtype Output

    /// Feeds the next piece of input, appending each output it completes to `output` (reuse one
    /// array across calls).
    ///
    /// - Throws: the decoder's error, naming the byte offset; after one, every later call throws
    ///   it again.
    mutating func feed(_ bytes: some Collection<UInt8>, into output: inout [Output]) throws

    /// Ends the stream: appends what the end of input completes and reports what was dropped
    /// unfinished.
    ///
    /// - Throws: the decoder's error (a stream cut before its end where the format requires one).
    mutating func finish(into output: inout [Output]) throws -> StreamEnd
}

extension IncrementalDecoder {
    /// Feeds the next piece of input and returns the outputs it completes.
    ///
    /// - Throws: as ``feed(_:into:)`` does.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws -> [Output] {
        var output: [Output] = []
        try feed(bytes, into: &output)
        return output
    }

    /// Ends the stream and returns what the end of input completes.
    ///
    /// - Throws: as ``finish(into:)`` does.
    public mutating func finish() throws -> [Output] {
        var output: [Output] = []
        _ = try finish(into: &output)
        return output
    }
}
