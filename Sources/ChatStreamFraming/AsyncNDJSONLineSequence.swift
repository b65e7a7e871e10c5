/// The NDJSON lines split from an async sequence of byte chunks.
///
/// Reach it with ``_Concurrency/AsyncSequence/ndjsonLines(configuration:)``. A last line without
/// a newline is delivered at the end.
public typealias AsyncNDJSONLineSequence<Base: AsyncSequence> = AsyncDecodedSequence<Base, NDJSONDecoder>
where Base.Element: Collection, Base.Element.Element == UInt8

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Splits this sequence of byte chunks into NDJSON lines.
    ///
    /// ```swift
    /// for try await line in chunks.ndjsonLines() {
    ///     try parser.parse(line.bytes) { print($0["type"]?.string ?? "") }
    /// }
    /// ```
    public func ndjsonLines(configuration: NDJSONDecoder.Configuration = .default) -> AsyncNDJSONLineSequence<Self> {
        decoded(using: NDJSONDecoder(configuration: configuration))
    }
}
