/// Snapshots of a reply as it grows: one after every event, then each choice's final message.
///
/// When the stream is cut, carries an error, or cannot be decoded, the final messages are
/// still handed out, with ``AssembledMessage/error`` saying what happened; the next call to
/// `next()` then throws the ``StreamError``. Nothing that arrived is lost.
///
/// Snapshots are values that share storage with the message being assembled. Keeping the latest
/// one (as a UI does) costs each later event its own delta only, however long the reply; reading
/// a held snapshot's ``AssembledMessage/parts`` or ``AssembledMessage/text`` while its part still
/// grows joins that part's pieces, O(text) per read, so read the text when you display it.
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

    let updates: AsyncMessageUpdateSequence<Events>

    init(events: Events) { updates = AsyncMessageUpdateSequence(events: events) }

    public func makeAsyncIterator() -> Iterator { Iterator(updates: updates.makeAsyncIterator()) }

    /// The updates without their events, and without a snapshot for a `.choice` switch.
    public struct Iterator: AsyncIteratorProtocol {
        var updates: AsyncMessageUpdateSequence<Events>.Iterator
        /// The assembler; its state is the message so far.
        public var assembler: MessageAssembler { updates.assembler }

        init(updates: AsyncMessageUpdateSequence<Events>.Iterator) { self.updates = updates }

        public mutating func next() async throws -> AssembledMessage? {
            while let update = try await updates.next() {
                if case .choice? = update.event { continue }
                return update.message
            }
            return nil
        }
    }
}

extension AsyncAssembledMessageSequence: Sendable where Events: Sendable {}

@available(*, unavailable)
extension AsyncAssembledMessageSequence.Iterator: Sendable {}
