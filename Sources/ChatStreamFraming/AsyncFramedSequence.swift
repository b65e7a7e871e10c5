// AsyncFramedSequence: the one async adapter behind every framing's AsyncSequence.
//
// The adapter holds no parsing logic: it pulls a chunk from the base sequence, hands its bytes to
// the pure framer (without copying when the chunk is contiguous), queues the owned units it
// completes, and hands them out one per `next()`. The queue is an array with a read index,
// emptied with its capacity kept, so no element is ever removed from its front. When the framer
// (or the base sequence) throws, the units completed before the error are handed out first, and
// the error after them: nothing already received is lost.

/// The units a ``StreamFramer`` finds in an async sequence of byte chunks, as owned values.
///
/// Reach it through a framing's method: ``_Concurrency/AsyncSequence/serverSentEvents(configuration:throwsOnTruncation:)``,
/// ``_Concurrency/AsyncSequence/ndjsonLines(configuration:)``,
/// ``_Concurrency/AsyncSequence/dataStreamV4Parts(configuration:)`` or
/// `jsonArrayElements(configuration:)` (in ChatStream), or with
/// ``_Concurrency/AsyncSequence/framed(by:configuration:throwsOnTruncation:)`` for any framer. The
/// framer's errors (``FramingError``) and the base sequence's are thrown from `next()`, after every
/// unit completed before them; after an error the sequence ends.
public struct AsyncFramedSequence<Base: AsyncSequence, Framer: StreamFramer>: AsyncSequence
where Base.Element: Collection, Base.Element.Element == UInt8 {
    public typealias Element = Framer.Output

    private let base: Base
    private let configuration: FramingConfiguration
    private let throwsOnTruncation: Bool

    package init(base: Base, configuration: FramingConfiguration, throwsOnTruncation: Bool) {
        self.base = base
        self.configuration = configuration
        self.throwsOnTruncation = throwsOnTruncation
    }

    /// Frames units from the base sequence's chunks.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: Base.AsyncIterator
        private var framer: Framer
        private let throwsOnTruncation: Bool
        private var pending: [Framer.Output] = []
        private var readIndex = 0
        private var done = false
        /// An error to throw once the units completed before it are handed out.
        private var failure: (any Error)?
        /// How the stream ended; `nil` until `next()` has returned `nil` (or thrown `.truncated`).
        public private(set) var end: StreamEnd?

        init(_ base: Base.AsyncIterator, _ configuration: FramingConfiguration, _ throwsOnTruncation: Bool) {
            self.base = base
            framer = Framer(configuration: configuration)
            self.throwsOnTruncation = throwsOnTruncation
        }

        /// The next unit, or `nil` at the end of the stream.
        public mutating func next() async throws -> Framer.Output? {
            while true {
                if readIndex < pending.count {
                    let unit = pending[readIndex]
                    readIndex += 1
                    return unit
                }
                pending.removeAll(keepingCapacity: true)
                readIndex = 0
                if let failure {
                    self.failure = nil
                    throw failure
                }
                if done { return nil }
                do {
                    if let chunk = try await base.next() {
                        try framer.feed(chunk, into: &pending)
                    } else {
                        done = true
                        let end = try framer.finish(into: &pending)
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
            }
        }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base.makeAsyncIterator(), configuration, throwsOnTruncation)
    }
}

extension AsyncFramedSequence: Sendable where Base: Sendable {}

@available(*, unavailable)
extension AsyncFramedSequence.Iterator: Sendable {}

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Frames this sequence of byte chunks with `framer`, handing out its units as owned values.
    ///
    /// ```swift
    /// for try await value in chunks.framed(by: JSONSequenceFramer.self) {
    ///     print(value.byteOffset, value.bytes.count)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - framer: the framer type.
    ///   - configuration: its limits.
    ///   - throwsOnTruncation: when `true`, a stream whose end the framer reports as dropped
    ///     unfinished (an SSE event cut short) throws ``FramingError`` `.truncated` instead of
    ///     ending normally.
    public func framed<Framer: StreamFramer>(
        by framer: Framer.Type, configuration: FramingConfiguration = .default, throwsOnTruncation: Bool = false
    ) -> AsyncFramedSequence<Self, Framer> {
        AsyncFramedSequence(base: self, configuration: configuration, throwsOnTruncation: throwsOnTruncation)
    }
}
