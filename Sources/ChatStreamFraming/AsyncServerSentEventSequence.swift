/// The server-sent events decoded from an async sequence of byte chunks.
///
/// Reach it with ``_Concurrency/AsyncSequence/serverSentEvents(configuration:throwsOnTruncation:)``.
/// A stream that ends inside an event ends the sequence normally (WHATWG drops the partial event)
/// unless `throwsOnTruncation` is set, in which case `next()` throws ``FramingError`` `.truncated`;
/// either way the iterator's ``AsyncDecodedSequence/Iterator/end`` reports what was dropped.
public typealias AsyncServerSentEventSequence<Base: AsyncSequence> = AsyncDecodedSequence<Base, ServerSentEventDecoder>
where Base.Element: Collection, Base.Element.Element == UInt8

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
        decoded(using: ServerSentEventDecoder(configuration: configuration), throwsOnTruncation: throwsOnTruncation)
    }
}
