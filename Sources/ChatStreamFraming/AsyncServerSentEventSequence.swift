/// The server-sent events decoded from an async sequence of byte chunks.
///
/// Reach it with ``_Concurrency/AsyncSequence/serverSentEvents(configuration:throwsOnTruncation:)``.
/// A stream that ends inside an event ends the sequence normally (WHATWG drops the partial event)
/// unless `throwsOnTruncation` is set, in which case `next()` throws ``FramingError`` `.truncated`;
/// either way the iterator's ``Iterator/end`` reports what was dropped.
public struct AsyncServerSentEventSequence<Base: AsyncSequence>: AsyncSequence
where Base.Element: Collection, Base.Element.Element == UInt8 {
    public typealias Element = ServerSentEvent

    private let base: Base
    private let configuration: ServerSentEventDecoder.Configuration
    private let throwsOnTruncation: Bool

    init(base: Base, configuration: ServerSentEventDecoder.Configuration, throwsOnTruncation: Bool) {
        self.base = base
        self.configuration = configuration
        self.throwsOnTruncation = throwsOnTruncation
    }

    /// Decodes events from the base sequence's chunks.
    public struct Iterator: AsyncIteratorProtocol {
        private var core: FramedIterator<Base.AsyncIterator, ServerSentEventDecoder>

        init(_ base: Base.AsyncIterator, _ configuration: ServerSentEventDecoder.Configuration, _ throwing: Bool) {
            core = FramedIterator(
                base: base, decoder: ServerSentEventDecoder(configuration: configuration), throwsOnTruncation: throwing)
        }

        /// How the stream ended; `nil` until `next()` has returned `nil` (or thrown `.truncated`).
        public var end: StreamEnd? { core.end }

        /// The next event, or `nil` at the end of the stream.
        public mutating func next() async throws -> ServerSentEvent? {
            try await core.next()
        }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base.makeAsyncIterator(), configuration, throwsOnTruncation)
    }
}

extension AsyncServerSentEventSequence: Sendable where Base: Sendable {}

@available(*, unavailable)
extension AsyncServerSentEventSequence.Iterator: Sendable {}

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Decodes this sequence of byte chunks (`[UInt8]`, `ArraySlice<UInt8>`, `Data`, ...) as a
    /// server-sent-event stream.
    ///
    /// ```swift
    /// for try await event in chunks.serverSentEvents() {
    ///     print(event.type, event.data)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: line and event size limits.
    ///   - throwsOnTruncation: when `true`, a stream that ends inside an event (or line) throws
    ///     ``FramingError`` `.truncated` instead of ending normally.
    public func serverSentEvents(
        configuration: ServerSentEventDecoder.Configuration = .default, throwsOnTruncation: Bool = false
    ) -> AsyncServerSentEventSequence<Self> {
        AsyncServerSentEventSequence(base: self, configuration: configuration, throwsOnTruncation: throwsOnTruncation)
    }
}
