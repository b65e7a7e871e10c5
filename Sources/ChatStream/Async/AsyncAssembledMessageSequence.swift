/// Snapshots of a reply as it grows: one after every event, then each choice's final message.
///
/// When the stream is cut, carries an error, or cannot be decoded, the final messages are
/// still handed out, with ``AssembledMessage/error`` saying what happened; the next call to
/// `next()` then throws the ``StreamError``. Nothing that arrived is lost.
///
/// Snapshots are values that share storage with the message being assembled. A snapshot still
/// held when the next event is applied (a UI keeping the latest one, say) makes that event copy
/// the text of the part it extends; for very long replies, read the text deltas from
/// ``AsyncStreamEventSequence`` instead, or keep only what you display.
///
/// ```swift
/// var last: AssembledMessage?
/// do {
///     for try await message in body.assembledMessages(format: .uiMessageStream) { last = message }
/// } catch let error as StreamError {
///     print("stream failed: \(error); kept \(last?.text.count ?? 0) characters")
/// }
/// ```
public struct AsyncAssembledMessageSequence<Events: AsyncSequence>: AsyncSequence where Events.Element == StreamEvent {
    public typealias Element = AssembledMessage

    let events: Events

    public init(events: Events) { self.events = events }

    public func makeAsyncIterator() -> Iterator { Iterator(events: events.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        var events: Events.AsyncIterator
        /// The assembler; its state is the message so far.
        public private(set) var assembler = MessageAssembler()
        /// The final messages and the error to hand over, once the events have run out.
        var end: FinalMessageHandOver?

        init(events: Events.AsyncIterator) { self.events = events }

        public mutating func next() async throws -> AssembledMessage? {
            if end == nil {
                do {
                    while let event = try await events.next() {
                        assembler.apply(event)
                        if case .choice = event { continue }
                        return assembler.takeSnapshot()
                    }
                    end = FinalMessageHandOver(assembler.finish(), then: nil)
                } catch {
                    end = FinalMessageHandOver(assembler.finish(error: StreamError(converting: error)), then: error)
                }
            }
            return try end!.next()
        }
    }
}

extension AsyncAssembledMessageSequence: Sendable where Events: Sendable {}

@available(*, unavailable)
extension AsyncAssembledMessageSequence.Iterator: Sendable {}
