/// The AI SDK v4 data stream parts split from an async sequence of byte chunks.
///
/// Reach it with ``_Concurrency/AsyncSequence/dataStreamV4Parts(configuration:)``. A last line
/// without a newline is delivered at the end.
public typealias AsyncDataStreamV4PartSequence<Base: AsyncSequence> = AsyncDecodedSequence<Base, DataStreamV4Decoder>
where Base.Element: Collection, Base.Element.Element == UInt8

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
        decoded(using: DataStreamV4Decoder(configuration: configuration))
    }
}
