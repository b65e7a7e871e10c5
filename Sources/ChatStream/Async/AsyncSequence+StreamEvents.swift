// The event rungs of the async layer: `streamEvents(format:)` is the one async adapter
// (`decoded(using:)`, ChatStreamFraming's AsyncDecodedSequence) over `AnyStreamDecoder` (made
// per iteration by StreamEventsDecoder), and the message rungs are the assembler over those
// events. No rung has a loop of its own: pulling a
// chunk, decoding it, handing out what it completed and then the error is the adapter's.

import ChatStreamFraming

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Decodes these byte chunks as `format` (detected from the first bytes when nil): the
    /// ``StreamEvent``s, as `decoded(using:)` hands them out from an ``AnyStreamDecoder`` of its
    /// own for each iteration (``StreamEventsDecoder``). Events decoded before an error all come
    /// before it; the error is a ``StreamError`` (or the base sequence's own, as it was thrown).
    ///
    /// ```swift
    /// for try await event in response.body.streamEvents(format: .uiMessageStream) {
    ///     if case .textDelta(_, let delta) = event { print(delta, terminator: "") }
    /// }
    /// ```
    public func streamEvents(
        format: StreamFormat? = nil, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) -> AsyncDecodedSequence<Self, StreamEventsDecoder> {
        decoded(using: StreamEventsDecoder(format: format, configuration: configuration))
    }

    /// Decodes and assembles these byte chunks: a snapshot of the growing message after each
    /// event, then the final message of every choice (``AssembledMessage/isFinished`` set).
    public func assembledMessages(
        format: StreamFormat? = nil, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) -> AsyncAssembledMessageSequence<AsyncDecodedSequence<Self, StreamEventsDecoder>> {
        AsyncAssembledMessageSequence(events: streamEvents(format: format, configuration: configuration))
    }

    /// Decodes and assembles these byte chunks: every event with the message after it, then the
    /// final message of every choice (``AsyncMessageUpdateSequence``).
    public func messageUpdates(
        format: StreamFormat? = nil, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) -> AsyncMessageUpdateSequence<AsyncDecodedSequence<Self, StreamEventsDecoder>> {
        AsyncMessageUpdateSequence(events: streamEvents(format: format, configuration: configuration))
    }
}
