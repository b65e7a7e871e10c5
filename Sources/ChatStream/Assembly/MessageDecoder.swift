// MessageDecoder: bytes in any chunking to assembled messages, for readers that want the
// message rather than every event.
//
// A `StreamDecoder` with the assembling sink, so that text deltas skip the event: the dialect
// hands each delta to the sink as the UTF-8 of its part ID and text, and the bytes of consecutive deltas of one part
// gather in one buffer that becomes one `String` when the part's run of deltas ends (another
// event, another part, a read of the message, or the end) or 16 KiB have gathered (so the buffer
// stays small and warm; the message's own text grows as it does event by event). Every other
// event goes to the assembler as it comes, after the text before it. Since each delta is whole
// UTF-8, the run's bytes make the same text as its deltas appended one by one, so the messages
// equal what decoder + assembler give event by event (tested at every chunking against that).

import ChatStreamFraming

/// Decodes a byte stream of one wire format straight into assembled messages: the work of
/// ``StreamDecoder`` plus ``MessageAssembler``, without a `String` per text delta.
///
/// For code that wants the reply rather than its events (a server collecting it, a test, a
/// command-line tool); a UI that shows each delta reads ``AsyncAssembledMessageSequence`` or
/// its own decoder and assembler instead. A stream that fails or ends early still gives
/// everything that arrived, with the error recorded in each message and in ``failure``.
///
/// ```swift
/// var decoder = MessageDecoder<UIMessageStreamDialect>()
/// for chunk in chunks {
///     do { try decoder.feed(chunk) } catch { break }   // the error is kept in `failure`
/// }
/// let reply = decoder.finish()[0]
/// print(reply.text, reply.error?.message ?? "complete")
/// ```
public struct MessageDecoder<Dialect: StreamDialect>: IncrementalDecoder {
    @usableFromInline var decoder: StreamDecoder<Dialect>
    @usableFromInline var sink: AssemblingSink
    /// The error that stopped decoding (or the truncation `finish` found); nil while all is well.
    public var failure: StreamError? { _failure }
    @usableFromInline var _failure: StreamError?
    /// The decoder's report, once it finished without an error.
    var end: StreamEnd?

    /// A decoder with these options for the stream and for tool inputs.
    public init(
        configuration: StreamDecoderConfiguration = StreamDecoderConfiguration(),
        toolInputLimits: JSONConfiguration = JSONConfiguration()
    ) {
        decoder = StreamDecoder(configuration: configuration)
        sink = AssemblingSink(assembler: MessageAssembler(toolInputLimits: toolInputLimits))
    }

    /// How many units of unknown type the dialect skipped.
    public var unknownUnitCount: Int { decoder.unknownUnitCount }

    /// Malformed units skipped in lenient mode, in order.
    public var skippedErrors: [StreamError] { decoder.skippedErrors }

    /// Feeds the next piece of the stream (`[UInt8]`, `ArraySlice`, `Data`, a raw buffer, ...):
    /// its events go into the message (nothing is returned; read ``message()`` or ``finish()``).
    ///
    /// - Throws: ``StreamError`` (malformed unless lenient, or a limit exceeded), naming the byte
    ///   offset; it is also kept in ``failure``, every later call throws it again, and
    ///   ``finish()`` still returns what was assembled before it.
    @inlinable
    public mutating func feed(_ bytes: some Collection<UInt8>) throws {
        do {
            try decoder.feed(bytes, into: &sink)
        } catch {
            let failure = StreamError(converting: error)
            _failure = failure
            throw failure
        }
    }

    /// The current choice's message as it stands (a snapshot later bytes never change).
    public mutating func message() -> AssembledMessage {
        sink.flush()
        return sink.assembler.message
    }

    /// Ends the stream and returns every choice's final message.
    ///
    /// When decoding failed, or the stream ended before its terminator, the messages hold
    /// everything that arrived and their ``AssembledMessage/error`` says what happened (the
    /// ``StreamError`` itself is in ``failure``). A second call returns the same messages.
    public mutating func finish() -> [AssembledMessage] {
        if failure == nil {
            do {
                end = try decoder.finish(into: &sink)
            } catch {
                _failure = StreamError(converting: error)
            }
        }
        sink.flush()
        return sink.assembler.finish(error: failure)
    }

    /// Feeds the next piece of the stream, as ``feed(_:)`` does (this is the
    /// `IncrementalDecoder` verb). A message is final only at the end, so nothing is appended to
    /// `messages` here: read ``message()`` for the one in progress.
    public mutating func feed(_ bytes: some Collection<UInt8>, into messages: inout [AssembledMessage]) throws {
        try feed(bytes)
    }

    /// Ends the stream as ``finish()`` does, appending every choice's final message to `messages`.
    ///
    /// - Returns: how the stream ended (the bytes fed, what framing dropped unfinished); it does
    ///   not throw: an error is recorded in the messages and in ``failure``.
    public mutating func finish(into messages: inout [AssembledMessage]) -> StreamEnd {
        messages.append(contentsOf: finish())
        return end ?? StreamEnd(totalBytes: decoder.totalBytes)
    }

    /// Ends the stream because reading it failed below the bytes (the transport threw, the task
    /// was cancelled): every choice's message as it stands, with `error` recorded as ``finish()``
    /// records a truncation, and `error` in ``failure``. An error decoding had already met stays
    /// the one recorded. For the async adapter, which hands the messages over before it throws.
    mutating func finish(error: StreamError) -> [AssembledMessage] {
        if _failure == nil { _failure = error }
        return finish()
    }
}

/// The assembling sink: text deltas gather in ``PendingText``, every other event goes to the
/// assembler after the text before it.
@usableFromInline
struct AssemblingSink: StreamEventSink {
    @usableFromInline var text = PendingText()
    @usableFromInline var assembler: MessageAssembler

    @usableFromInline
    init(assembler: MessageAssembler) {
        self.assembler = assembler
    }

    @inlinable @inline(__always)
    mutating func textDelta(id: String, delta: CheckedUTF8) throws {
        text.append(delta.bytes, id: id, assembler: &assembler)
    }

    @inlinable
    mutating func event(_ event: StreamEvent) throws {
        text.flush(into: &assembler)
        assembler.apply(event)
    }

    /// Hands the text held to the assembler.
    @inlinable
    mutating func flush() {
        text.flush(into: &assembler)
    }
}

/// The bytes of consecutive text deltas of one part, not yet in the message.
@usableFromInline
struct PendingText {
    /// The part ID of the text held (or last held).
    @usableFromInline var id = ""
    /// Whether deltas are held (possibly empty ones).
    @usableFromInline var holding = false
    /// Room for the text: `storage[..<count]` holds it; the rest is free space (kept
    /// initialised, so an append is one copy with no growth bookkeeping).
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var count = 0

    /// How much text gathers before it is handed over; the buffer's usual size.
    @usableFromInline static let limit = 1 << 14

    @usableFromInline init() {}

    /// Adds a delta; a delta of another part first hands over the text held.
    @inlinable @inline(__always)
    mutating func append(
        _ utf8: UnsafeRawBufferPointer, id: String, assembler: inout MessageAssembler
    ) {
        if id != self.id { changeID(id, assembler: &assembler) }
        holding = true
        let length = utf8.count
        guard length > 0 else { return }
        if count &+ length > storage.count { grow(to: count &+ length) }
        let offset = count
        storage.withUnsafeMutableBytes {
            $0.baseAddress!.advanced(by: offset).copyMemory(from: utf8.baseAddress!, byteCount: length)
        }
        count = offset &+ length
        if count >= Self.limit { flush(into: &assembler) }
    }

    @usableFromInline @inline(never)
    mutating func changeID(_ id: String, assembler: inout MessageAssembler) {
        flush(into: &assembler)
        self.id = id
    }

    @usableFromInline @inline(never)
    mutating func grow(to needed: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(needed, Self.limit, storage.count * 2) - storage.count))
    }

    /// The text held: well-formed UTF-8 (every delta came as ``CheckedUTF8``), so it is not
    /// checked again where the standard library can take it unchecked.
    @usableFromInline
    func text() -> String {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return String(copying: UTF8Span(unchecked: storage.span.extracting(..<count)))
        }
        return storage.withUnsafeBufferPointer { String(decoding: $0[..<count], as: UTF8.self) }
    }

    /// Hands the text held to the assembler as one text delta (nothing when none is held).
    @inlinable
    mutating func flush(into assembler: inout MessageAssembler) {
        guard holding else { return }
        holding = false
        assembler.apply(.textDelta(id: id, delta: text()))
        count = 0
        // One very long delta is not kept as free space for the rest of the stream.
        if storage.count > 2 * Self.limit { storage = [] }
    }
}
