/// The AI SDK v4 data stream parts split from an async sequence of byte chunks.
///
/// Reach it with ``_Concurrency/AsyncSequence/dataStreamV4Parts(configuration:)``. A last line
/// without a newline is delivered at the end.
public struct AsyncDataStreamV4PartSequence<Base: AsyncSequence>: AsyncSequence
where Base.Element: Collection, Base.Element.Element == UInt8 {
    public typealias Element = DataStreamV4Part

    private let base: Base
    private let configuration: DataStreamV4Decoder.Configuration

    init(base: Base, configuration: DataStreamV4Decoder.Configuration) {
        self.base = base
        self.configuration = configuration
    }

    /// Splits parts from the base sequence's chunks.
    public struct Iterator: AsyncIteratorProtocol {
        private var core: FramedIterator<Base.AsyncIterator, DataStreamV4Decoder>

        init(_ base: Base.AsyncIterator, _ configuration: DataStreamV4Decoder.Configuration) {
            core = FramedIterator(
                base: base, decoder: DataStreamV4Decoder(configuration: configuration), throwsOnTruncation: false)
        }

        /// The next part, or `nil` at the end of the stream.
        public mutating func next() async throws -> DataStreamV4Part? {
            try await core.next()
        }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base.makeAsyncIterator(), configuration)
    }
}

extension AsyncDataStreamV4PartSequence: Sendable where Base: Sendable {}

@available(*, unavailable)
extension AsyncDataStreamV4PartSequence.Iterator: Sendable {}

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Splits this sequence of byte chunks into AI SDK v4 data stream parts (`CODE:JSON` lines).
    ///
    /// ```swift
    /// for try await part in chunks.dataStreamV4Parts() where part.code == "0" {
    ///     print(String(decoding: part.payload, as: UTF8.self))
    /// }
    /// ```
    public func dataStreamV4Parts(
        configuration: DataStreamV4Decoder.Configuration = .default
    ) -> AsyncDataStreamV4PartSequence<Self> {
        AsyncDataStreamV4PartSequence(base: self, configuration: configuration)
    }
}
