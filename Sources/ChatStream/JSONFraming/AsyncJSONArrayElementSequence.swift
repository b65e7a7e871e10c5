import ChatStreamFraming

/// The elements of one top-level JSON array (Gemini's REST streaming) framed from an async
/// sequence of byte chunks, each handed out as soon as its last byte has arrived.
///
/// Reach it with `jsonArrayElements(configuration:)` on an async sequence of byte chunks. A stream that
/// ends before the array's `]` throws `FramingError` `.truncated` (after every complete element
/// was handed out); junk around or between elements throws at its byte offset.
public typealias AsyncJSONArrayElementSequence<Base: AsyncSequence> = AsyncDecodedSequence<Base, JSONArrayElementFramer>
where Base.Element: Collection, Base.Element.Element == UInt8

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Frames this sequence of byte chunks as one top-level JSON array, handing out each element's
    /// bytes (not parsed) with its stream offset.
    ///
    /// ```swift
    /// for try await element in chunks.jsonArrayElements() {
    ///     print(element.byteOffset, String(decoding: element.bytes, as: UTF8.self))
    /// }
    /// ```
    ///
    /// - Parameter configuration: the element size limit (`FramingConfiguration.maxValueBytes`)
    ///   and nesting limit (`FramingConfiguration.maxDepth`).
    public func jsonArrayElements(
        configuration: FramingConfiguration = .default
    ) -> AsyncJSONArrayElementSequence<Self> {
        decoded(using: JSONArrayElementFramer(configuration: configuration))
    }
}
