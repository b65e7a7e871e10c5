// The async layer over the pure decoders: pull a chunk, decode it synchronously, hand out the
// events one per `next()`. Events decoded before an error are all handed out before the error
// is thrown, so a consumer never loses what arrived.

import ChatStreamFraming

/// The ``StreamEvent``s of a byte stream, decoded as chunks arrive.
///
/// ```swift
/// for try await event in response.body.streamEvents(format: .uiMessageStream) {
///     if case .textDelta(_, let delta) = event { print(delta, terminator: "") }
/// }
/// ```
public struct AsyncStreamEventSequence<Base: AsyncSequence>: AsyncSequence
where Base.Element: Collection, Base.Element.Element == UInt8 {
    public typealias Element = StreamEvent

    let base: Base
    let format: StreamFormat?
    let configuration: StreamDecoderConfiguration

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            base: base.makeAsyncIterator(), decoder: AnyStreamDecoder(format: format, configuration: configuration))
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var decoder: AnyStreamDecoder
        var pending: [StreamEvent] = []
        var readIndex = 0
        var failure: StreamError?
        var ended = false

        init(base: Base.AsyncIterator, decoder: AnyStreamDecoder) {
            self.base = base
            self.decoder = decoder
        }

        /// The format in use, once known (detected from the first bytes when none was given).
        public var format: StreamFormat? { decoder.format }

        public mutating func next() async throws -> StreamEvent? {
            while true {
                if readIndex < pending.count {
                    let event = pending[readIndex]
                    readIndex += 1
                    return event
                }
                pending.removeAll(keepingCapacity: true)
                readIndex = 0
                if let failure {
                    self.failure = nil
                    ended = true
                    throw failure
                }
                if ended { return nil }
                let chunk: Base.Element?
                do {
                    chunk = try await base.next()
                } catch {
                    // The transport failed: everything decoded so far has been handed out.
                    ended = true
                    throw error
                }
                do {
                    if let chunk {
                        try decoder.feed(chunk, into: &pending)
                    } else {
                        ended = true
                        try decoder.finish(into: &pending)
                    }
                } catch {
                    failure = StreamError(converting: error)
                }
            }
        }
    }
}

extension AsyncStreamEventSequence: Sendable where Base: Sendable {}

@available(*, unavailable)
extension AsyncStreamEventSequence.Iterator: Sendable {}

extension AsyncSequence where Element: Collection, Element.Element == UInt8 {
    /// Decodes these byte chunks as `format` (detected from the first bytes when nil).
    public func streamEvents(
        format: StreamFormat? = nil, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) -> AsyncStreamEventSequence<Self> {
        AsyncStreamEventSequence(base: self, format: format, configuration: configuration)
    }

    /// Decodes and assembles these byte chunks: a snapshot of the growing message after each
    /// event, then the final message of every choice (``AssembledMessage/isFinished`` set).
    public func assembledMessages(
        format: StreamFormat? = nil, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) -> AsyncAssembledMessageSequence<AsyncStreamEventSequence<Self>> {
        AsyncAssembledMessageSequence(events: streamEvents(format: format, configuration: configuration))
    }

    /// Decodes and assembles these byte chunks: every event with the message after it, then the
    /// final message of every choice (``AsyncMessageUpdateSequence``).
    public func messageUpdates(
        format: StreamFormat? = nil, configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) -> AsyncMessageUpdateSequence<AsyncStreamEventSequence<Self>> {
        AsyncMessageUpdateSequence(events: streamEvents(format: format, configuration: configuration))
    }
}
