// The async layer over MessageDecoder: pull every chunk, decode it synchronously, and hand the
// final messages over once the stream has ended. No event and no snapshot is made per delta.
// A failure is handled as AsyncAssembledMessageSequence handles it: the messages first, with
// the error recorded in them, then the error. Since the iterator reads the whole stream inside
// one `next()`, where the consumer cannot stop it, it checks for cancellation between chunks.

/// The final message of every choice of a byte stream (what ``AsyncAssembledMessageSequence``
/// yields last), decoded through ``AnyMessageDecoder``: no event or snapshot per delta.
///
/// Reach it with `finalMessages(format:configuration:)`. The first
/// `next()` reads the stream to its end and returns the first choice's message (the only one
/// unless an OpenAI request asked for `n > 1`); the next calls return the other choices, then nil.
///
/// When the stream is cut, carries an error, cannot be decoded, or its base sequence throws,
/// the messages are still handed out, holding everything that arrived, with
/// ``AssembledMessage/error`` saying what happened; the next call to `next()` then throws: the
/// ``StreamError``, or the base sequence's own error as it was thrown. A task cancelled while the
/// stream is read stops before the next chunk, as if the base had thrown `CancellationError`.
public struct AsyncFinalMessageSequence<Base: AsyncSequence>: AsyncSequence
where Base.Element: Collection, Base.Element.Element == UInt8 {
    public typealias Element = AssembledMessage

    let base: Base
    let format: StreamFormat?
    let configuration: StreamDecoderConfiguration

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            base: base.makeAsyncIterator(), decoder: AnyMessageDecoder(format: format, configuration: configuration))
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        /// The decoder: once the first message is out, its format, failure and skipped errors.
        public private(set) var decoder: AnyMessageDecoder
        /// The messages and the error to hand over, once the stream has been read.
        var end: FinalMessageHandOver?

        init(base: Base.AsyncIterator, decoder: AnyMessageDecoder) {
            self.base = base
            self.decoder = decoder
        }

        /// The format in use, once known (detected from the first bytes when none was given).
        public var format: StreamFormat? { decoder.format }

        public mutating func next() async throws -> AssembledMessage? {
            if end == nil { end = await decodeToTheEnd() }
            return try end!.next()
        }

        /// Reads and decodes the stream up to its end or the first error: the final messages,
        /// and the error to throw after them.
        private mutating func decodeToTheEnd() async -> FinalMessageHandOver {
            var stopped: (any Error)? = nil
            while true {
                if Task.isCancelled {
                    stopped = CancellationError()
                    break
                }
                let chunk: Base.Element?
                do {
                    chunk = try await base.next()
                } catch {
                    stopped = error
                    break
                }
                guard let chunk else { break }
                do { try decoder.feed(chunk) } catch { break }  // kept in decoder.failure
            }
            guard let stopped else { return FinalMessageHandOver(decoder.finish(), then: decoder.failure) }
            // Below the bytes (the transport, cancellation): recorded as a stream error, thrown as it came.
            return FinalMessageHandOver(decoder.finish(error: StreamError(converting: stopped)), then: stopped)
        }
    }
}

extension AsyncFinalMessageSequence: Sendable where Base: Sendable {}

@available(*, unavailable)
extension AsyncFinalMessageSequence.Iterator: Sendable {}

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Decodes these byte chunks as `format` (detected from the first bytes when nil) straight
    /// into the final message of every choice: the last elements of
    /// ``assembledMessages(format:configuration:)``, equal to them, without its event and
    /// snapshot per delta.
    ///
    /// For code that wants the reply, not its progress: a server or a script collecting it, a
    /// test. A UI that shows the text as it grows reads `assembledMessages(format:)` instead.
    /// Why a method of its own: its messages come from the bytes through ``AnyMessageDecoder``,
    /// with no events in between, so it is not an option of `assembledMessages`; it is named for
    /// what it yields, each choice's final message (``AssembledMessage/isFinished`` set), which
    /// is not a complete one when the stream failed. And it is a sequence, not an `async` function
    /// returning the message, so that a failed stream still hands over what arrived before it
    /// throws.
    ///
    /// ```swift
    /// var reply: AssembledMessage?
    /// do {
    ///     for try await message in response.body.finalMessages(format: .uiMessageStream) {
    ///         reply = reply ?? message   // the first choice (the only one, unless n > 1)
    ///     }
    /// } catch {
    ///     print("stream failed: \(error)")   // reply?.error says so too; reply keeps what arrived
    /// }
    /// print(reply?.text ?? "")
    /// ```
    public func finalMessages(
        format: StreamFormat? = nil, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) -> AsyncFinalMessageSequence<Self> {
        AsyncFinalMessageSequence(base: self, format: format, configuration: configuration)
    }
}
