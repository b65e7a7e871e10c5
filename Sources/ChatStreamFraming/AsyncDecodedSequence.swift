// AsyncDecodedSequence: the one async adapter behind every framing's and decoder's AsyncSequence.
//
// The adapter holds no parsing logic: it pulls a chunk from the base sequence, hands its bytes to
// the pure decoder (any `IncrementalDecoder`: a framer, a stream or live-event decoder; without
// copying when the chunk is contiguous), queues the owned outputs it completes, and hands them
// out one per `next()`. The queue is an array with a read index, emptied with its capacity kept,
// so no element is ever removed from its front. When the decoder (or the base sequence) throws,
// the outputs completed before the error are handed out first, and the error after them: nothing
// already received is lost.

/// The outputs an ``IncrementalDecoder`` finds in an async sequence of byte chunks, as owned values.
///
/// Reach it with ``_Concurrency/AsyncSequence/decoded(using:throwsOnTruncation:)`` for any
/// decoder, or through a named rung that is that call with its decoder:
/// ``_Concurrency/AsyncSequence/serverSentEvents(configuration:throwsOnTruncation:)``,
/// ``_Concurrency/AsyncSequence/ndjsonLines(configuration:)``,
/// ``_Concurrency/AsyncSequence/dataStreamV4Parts(configuration:)``,
/// ``_Concurrency/AsyncSequence/framed(by:configuration:throwsOnTruncation:)`` or
/// `jsonArrayElements(configuration:)` (in ChatStream). The decoder's errors and the base
/// sequence's are thrown from `next()`, after every output completed before them; after an error
/// the sequence ends.
public struct AsyncDecodedSequence<Base: AsyncSequence, Decoder: IncrementalDecoder>: AsyncSequence
where Base.Element: Collection, Base.Element.Element == UInt8 {
    public typealias Element = Decoder.Output

    private let base: Base
    private let decoder: Decoder
    private let throwsOnTruncation: Bool

    package init(base: Base, decoder: Decoder, throwsOnTruncation: Bool) {
        self.base = base
        self.decoder = decoder
        self.throwsOnTruncation = throwsOnTruncation
    }

    /// Decodes the base sequence's chunks with its own copy of the decoder.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: Base.AsyncIterator
        private var decoder: Decoder
        private let throwsOnTruncation: Bool
        private var pending: [Decoder.Output] = []
        private var readIndex = 0
        private var done = false
        /// An error to throw once the outputs completed before it are handed out.
        private var failure: (any Error)?
        /// How the stream ended; `nil` until `next()` has returned `nil` (or thrown `.truncated`).
        public private(set) var end: StreamEnd?

        init(_ base: Base.AsyncIterator, _ decoder: Decoder, _ throwsOnTruncation: Bool) {
            self.base = base
            self.decoder = decoder
            self.throwsOnTruncation = throwsOnTruncation
        }

        /// The next output, or `nil` at the end of the stream.
        public mutating func next() async throws -> Decoder.Output? {
            if readIndex >= pending.count, try await !refill() { return nil }
            let output = pending[readIndex]
            readIndex += 1
            return output
        }

        /// Every output not handed out yet, at least one (those of the last chunk read, else all
        /// that the next chunks complete), or `nil` at the end of the stream: for a consumer that
        /// takes a network read's outputs in one synchronous step. Errors come as from ``next()``,
        /// after the outputs completed before them.
        package mutating func nextOutputs() async throws -> ArraySlice<Decoder.Output>? {
            if readIndex >= pending.count, try await !refill() { return nil }
            defer { readIndex = pending.count }
            return pending[readIndex...]
        }

        /// Empties the queue (every output was handed out) and reads chunks until the decoder
        /// completes at least one output (true) or the stream ends (false). A failure is thrown
        /// here once the outputs completed before it have been handed out.
        private mutating func refill() async throws -> Bool {
            while true {
                pending.removeAll(keepingCapacity: true)
                readIndex = 0
                if let failure {
                    self.failure = nil
                    throw failure
                }
                if done { return false }
                do {
                    if let chunk = try await base.next() {
                        try decoder.feed(chunk, into: &pending)
                    } else {
                        done = true
                        let end = try decoder.finish(into: &pending)
                        self.end = end
                        if throwsOnTruncation, let offset = end.droppedFromOffset {
                            throw FramingError(
                                .truncated, byteOffset: offset,
                                message: "the stream ended inside an event; \(end.droppedBytes) bytes were dropped")
                        }
                    }
                } catch {
                    done = true
                    failure = error
                }
                if !pending.isEmpty { return true }
            }
        }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base.makeAsyncIterator(), decoder, throwsOnTruncation)
    }
}

extension AsyncDecodedSequence: Sendable where Base: Sendable, Decoder: Sendable {}

@available(*, unavailable)
extension AsyncDecodedSequence.Iterator: Sendable {}

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Decodes this sequence of byte chunks with `decoder` (each iteration with its own copy),
    /// handing out its outputs as owned values.
    ///
    /// ```swift
    /// for try await line in chunks.decoded(using: NDJSONDecoder(configuration: .default)) {
    ///     print(line.byteOffset, line.bytes.count)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - decoder: a framer or decoder, fresh or configured.
    ///   - throwsOnTruncation: when `true`, a stream whose end the decoder reports as dropped
    ///     unfinished (an SSE event cut short) throws ``FramingError`` `.truncated` instead of
    ///     ending normally.
    public func decoded<Decoder: IncrementalDecoder>(
        using decoder: Decoder, throwsOnTruncation: Bool = false
    ) -> AsyncDecodedSequence<Self, Decoder> {
        AsyncDecodedSequence(base: self, decoder: decoder, throwsOnTruncation: throwsOnTruncation)
    }

    /// Frames this sequence of byte chunks with a new `framer` of these limits:
    /// `decoded(using: Framer(configuration: configuration))`.
    ///
    /// ```swift
    /// for try await value in chunks.framed(by: JSONSequenceFramer.self) {
    ///     print(value.byteOffset, value.bytes.count)
    /// }
    /// ```
    public func framed<Framer: StreamFramer>(
        by framer: Framer.Type, configuration: FramingConfiguration = .default, throwsOnTruncation: Bool = false
    ) -> AsyncDecodedSequence<Self, Framer> {
        decoded(using: Framer(configuration: configuration), throwsOnTruncation: throwsOnTruncation)
    }
}
