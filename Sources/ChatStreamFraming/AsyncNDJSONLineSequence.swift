/// The NDJSON lines split from an async sequence of byte chunks.
///
/// Reach it with ``_Concurrency/AsyncSequence/ndjsonLines(configuration:)``. A last line without
/// a newline is delivered at the end.
public struct AsyncNDJSONLineSequence<Base: AsyncSequence>: AsyncSequence
where Base.Element: Collection, Base.Element.Element == UInt8 {
    public typealias Element = NDJSONLine

    private let base: Base
    private let configuration: NDJSONDecoder.Configuration

    init(base: Base, configuration: NDJSONDecoder.Configuration) {
        self.base = base
        self.configuration = configuration
    }

    /// Splits lines from the base sequence's chunks.
    public struct Iterator: AsyncIteratorProtocol {
        private var core: FramedIterator<Base.AsyncIterator, NDJSONDecoder>

        init(_ base: Base.AsyncIterator, _ configuration: NDJSONDecoder.Configuration) {
            core = FramedIterator(
                base: base, decoder: NDJSONDecoder(configuration: configuration), throwsOnTruncation: false)
        }

        /// The next non-blank line, or `nil` at the end of the stream.
        public mutating func next() async throws -> NDJSONLine? {
            try await core.next()
        }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base.makeAsyncIterator(), configuration)
    }
}

extension AsyncNDJSONLineSequence: Sendable where Base: Sendable {}

@available(*, unavailable)
extension AsyncNDJSONLineSequence.Iterator: Sendable {}

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Splits this sequence of byte chunks into NDJSON lines.
    ///
    /// ```swift
    /// for try await line in chunks.ndjsonLines() {
    ///     try parser.parse(line.bytes)
    /// }
    /// ```
    public func ndjsonLines(configuration: NDJSONDecoder.Configuration = .default) -> AsyncNDJSONLineSequence<Self> {
        AsyncNDJSONLineSequence(base: self, configuration: configuration)
    }
}
