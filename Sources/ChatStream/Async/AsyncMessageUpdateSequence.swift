// The async layer's fourth rung: each event with the message as it stands after it. It is what
// a chat UI consumes (the client's own send path reads replies through it), and the snapshots
// rung (AsyncAssembledMessageSequence) is this sequence without the events.

/// One step of a decoded reply: the event that arrived and the message as it stands after it;
/// at the end of the stream, each choice's final message with no event.
public struct MessageUpdate: Sendable, Hashable {
    /// The event just applied to ``message``; nil for a final message.
    public var event: StreamEvent?
    /// The message so far (after ``event``), or a choice's final message
    /// (``AssembledMessage/isFinished`` set) when ``event`` is nil.
    public var message: AssembledMessage

    /// Whether this is a choice's final message rather than a step of the stream.
    public var isFinal: Bool { event == nil }
}

/// Every event of a byte stream with the message so far, then every choice's final message.
///
/// Reach it with `messageUpdates(format:configuration:)`. Each event (a `.choice` switch too)
/// gives one update holding the event and the current choice's message after it. When the events
/// run out, one update per choice carries its final message (`event` nil). When the stream is
/// cut, carries an error, cannot be decoded, or its base sequence throws, those final messages
/// still come, holding everything that arrived, with ``AssembledMessage/error`` saying what
/// happened; the next call to `next()` then throws: the ``StreamError``, or the base sequence's
/// own error as it was thrown. Nothing that arrived is lost.
///
/// Each event costs its own delta, however long the reply, whether the consumer keeps its own
/// state from ``MessageUpdate/event`` (as the client's `ConversationState` does) or keeps the
/// latest ``MessageUpdate/message``: a snapshot shares what was written with the message being
/// assembled, and the next delta is appended beside it, not into a copy of the text so far.
/// Reading a held snapshot's ``AssembledMessage/parts`` or ``AssembledMessage/text`` joins the
/// growing part's pieces, O(text) per read; the final messages read in O(1).
///
/// ```swift
/// var reply: AssembledMessage?
/// do {
///     for try await update in body.messageUpdates(format: .uiMessageStream) {
///         if case .textDelta(_, let delta)? = update.event { print(delta, terminator: "") }
///         if update.isFinal { reply = update.message }
///     }
/// } catch {
///     print("\nstream failed: \(error); kept \(reply?.text.count ?? 0) characters")
/// }
/// ```
public struct AsyncMessageUpdateSequence<Events: AsyncSequence>: AsyncSequence where Events.Element == StreamEvent {
    public typealias Element = MessageUpdate

    let events: Events

    init(events: Events) { self.events = events }

    public func makeAsyncIterator() -> Iterator { Iterator(events: events.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        var events: Events.AsyncIterator
        /// The assembler; its state is the message so far.
        public private(set) var assembler = MessageAssembler()
        /// The final messages and the error to hand over, once the events have run out.
        var end: FinalMessageHandOver?

        init(events: Events.AsyncIterator) { self.events = events }

        public mutating func next() async throws -> MessageUpdate? {
            if end == nil {
                do {
                    if let event = try await events.next() {
                        assembler.apply(event)
                        return MessageUpdate(event: event, message: assembler.message)
                    }
                    end = FinalMessageHandOver(assembler.finish(), then: nil)
                } catch {
                    end = FinalMessageHandOver(assembler.finish(error: StreamError(converting: error)), then: error)
                }
            }
            return try end!.next().map { MessageUpdate(event: nil, message: $0) }
        }
    }
}

extension AsyncMessageUpdateSequence: Sendable where Events: Sendable {}

@available(*, unavailable)
extension AsyncMessageUpdateSequence.Iterator: Sendable {}
