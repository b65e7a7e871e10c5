import ChatStream

/// One step of a streamed reply: the event that arrived and the message as it stands after it.
///
/// ```swift
/// for try await update in client.updates(sending: "Hello") {
///     if case .textDelta(_, let delta) = update.event { print(delta, terminator: "") }
/// }
/// ```
public struct ChatUpdate: Sendable, Hashable {
    /// The event (a `StreamEvent.toolResult(id:name:output:preliminary:)` for each result the
    /// client's own tool handlers produced).
    public var event: StreamEvent
    /// The reply of the current round as it stands after ``event``.
    public var message: AssembledMessage
    /// The round: 0 for the reply to the message, then one more per tool-loop continuation.
    public var round: Int

    public init(event: StreamEvent, message: AssembledMessage, round: Int = 0) {
        self.event = event
        self.message = message
        self.round = round
    }
}
