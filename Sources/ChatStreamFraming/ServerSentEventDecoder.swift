// ServerSentEventDecoder: the WHATWG event-stream parser as a pure incremental state machine.
//
// Two layers: LineSplitter turns pieces of input into complete lines (pointers straight into the
// input when a line lies within one piece, a reused carry buffer otherwise), and
// ServerSentEventInterpreter applies the field rules and dispatches blocks. The common block, one
// `data:` line (after one `event:` line or none) and an empty line, each ended by LF and wholly
// inside one piece, is offered to the interpreter before the line path and dispatched in one
// step; anything else goes line by line.
// The hot path is the visitor `feed(_:_:)`: it makes no allocation once the reused buffers have
// grown. The owned API (`feed(_:) -> [ServerSentEvent]`) is built on it.

/// Decodes a server-sent-event stream (WHATWG HTML "event stream interpretation") incrementally.
///
/// Feed the bytes as they arrive, in pieces of any size; call ``finish(into:)`` at the end of
/// input. The output does not depend on how the input was cut.
///
/// ```swift
/// var decoder = ServerSentEventDecoder()
/// var events: [ServerSentEvent] = []
/// for piece in pieces { try decoder.feed(piece, into: &events) }
/// let end = try decoder.finish(into: &events)
/// if end.isTruncated { /* the stream stopped inside an event */ }
/// ```
///
/// Once `feed` or `finish` throws a ``FramingError``, the decoder is failed and every later call
/// throws that error again. (The lent visitors, `feed(_:_:)`, `feed(_:onEvent:onComment:)` and
/// `finish(_:)`, with their `ServerSentEventView`, are for dialect authors: `@_spi(Dialects)`.
/// If your visitor throws, stop using the decoder.)
public struct ServerSentEventDecoder: Sendable {
    /// Limits that bound the decoder's memory: ``FramingConfiguration/maxLineBytes`` and
    /// ``FramingConfiguration/maxEventBytes`` (16 MiB each by default).
    public typealias Configuration = FramingConfiguration

    /// The limits in force.
    public let configuration: Configuration
    private var lines: LineSplitter
    private var interpreter: ServerSentEventInterpreter
    private var failure: FramingError?

    /// Makes a decoder for one stream.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
        lines = LineSplitter(endings: .crLFOrCRLF, maxLineBytes: configuration.maxLineBytes)
        interpreter = ServerSentEventInterpreter(maxEventBytes: configuration.maxEventBytes)
    }

    /// The last event ID seen (sticky across events and updated even by blocks that dispatch
    /// nothing), or `nil` when it is empty. Use it as `Last-Event-ID` when reconnecting.
    public var lastEventID: String? {
        interpreter.lastEventID.isEmpty ? nil : String(decoding: interpreter.lastEventID, as: UTF8.self)
    }

    /// The last valid `retry` value seen in the stream, in milliseconds, if any.
    public var reconnectionTime: Int? { interpreter.reconnectionTime }

    /// Bytes currently held by the decoder for unfinished lines and events.
    public var bufferedByteCount: Int { lines.bufferedByteCount + interpreter.bufferedByteCount }

    /// Bytes fed since the stream began.
    public var byteCount: Int { lines.streamOffset }

    /// Feeds the next piece of input and calls `onEvent` for each event it completes.
    ///
    /// The view and its buffers are valid only during the call. No allocation happens here once
    /// the decoder's reused buffers have grown to the stream's line and event sizes.
    ///
    /// - Throws: ``FramingError`` with kind `.lineTooLong` or `.eventTooLarge`, or what `onEvent` throws.
    @_spi(Dialects)
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer, _ onEvent: (ServerSentEventView) throws -> Void
    ) throws {
        try feed(bytes, onEvent: onEvent, onComment: { _ in })
    }

    /// Like `feed(_:_:)`, also calling `onComment` with the text after `:` of each comment line.
    @_spi(Dialects)
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        onEvent: (ServerSentEventView) throws -> Void,
        onComment: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        if let failure { throw failure }
        defer { interpreter.detachFromInput() }
        do {
            try Self.run(&lines, &interpreter, bytes, onEvent, onComment)
        } catch let error as FramingError {
            failure = error
            throw error
        }
    }

    /// Ends the stream: an unfinished line or block is dropped (as WHATWG says) and reported.
    ///
    /// `onEvent` is never called (EOF does not dispatch); it is here so the visitor and owned
    /// APIs read alike. Afterwards the decoder is ready for a new stream (offsets restart at 0
    /// and a BOM is skipped again) but keeps ``lastEventID`` and ``reconnectionTime``, as a
    /// reconnecting `EventSource` does.
    @_spi(Dialects) @discardableResult
    public mutating func finish(_ onEvent: (ServerSentEventView) throws -> Void) throws -> StreamEnd {
        if let failure { throw failure }
        let total = lines.streamOffset
        let droppedFrom = [interpreter.blockStart, lines.partialLineOffset].compactMap { $0 }.min()
        lines.reset()
        interpreter.dropBlock()
        guard let droppedFrom else { return StreamEnd(totalBytes: total) }
        return StreamEnd(totalBytes: total, droppedBytes: total - droppedFrom, droppedFromOffset: droppedFrom)
    }

    private static func run(
        _ lines: inout LineSplitter, _ interpreter: inout ServerSentEventInterpreter,
        _ bytes: UnsafeRawBufferPointer,
        _ onEvent: (ServerSentEventView) throws -> Void,
        _ onComment: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let maxLineBytes = lines.maxLineBytes
        try lines.feed(
            bytes,
            skipping: { input, index, offset, finder in
                try interpreter.dispatchOneStepBlock(
                    input, at: index, streamOffset: offset, maxLineBytes: maxLineBytes, finder: &finder, onEvent)
            },
            { line, offset, inInput in
                try interpreter.interpret(line, at: offset, inInput: inInput, onEvent, onComment)
            })
    }
}

extension ServerSentEventDecoder: StreamFramer {
    /// Feeds the next piece of input, lending each event it completes as a ``FramedUnit``: its
    /// type, its data, and the offset of the data's first byte.
    @_spi(Dialects) @inlinable @inline(__always)
    public mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, _ onUnit: (FramedUnit) throws -> Void) throws {
        try feed(bytes) { event in
            try onUnit(FramedUnit(type: event.type, data: event.data, streamOffset: event.dataOffset))
        }
    }

    /// Ends the stream as `finish(_:)` does (end of input dispatches nothing).
    @_spi(Dialects)
    public mutating func finishUnits(_ onUnit: (FramedUnit) throws -> Void) throws -> StreamEnd {
        try finish { _ in }
    }

    /// Feeds the next piece of input, appending each event it completes to `units` (reuse one
    /// array across calls).
    ///
    /// ```swift
    /// var decoder = ServerSentEventDecoder()
    /// let events = try decoder.feed(Array("data: hi\n\n".utf8))  // [ServerSentEvent(data: "hi")]
    /// ```
    public mutating func feed(_ bytes: some Collection<UInt8>, into units: inout [ServerSentEvent]) throws {
        try withContiguousBytes(bytes) { raw in try feed(raw) { units.append(ServerSentEvent($0)) } }
    }

    /// Ends the stream: an unfinished line or block is dropped (as WHATWG says) and reported; end
    /// of input dispatches nothing, so `units` is left as it is. Afterwards the decoder is ready
    /// for a new stream but keeps ``lastEventID`` and ``reconnectionTime``.
    public mutating func finish(into units: inout [ServerSentEvent]) throws -> StreamEnd {
        try finish { _ in }
    }
}
