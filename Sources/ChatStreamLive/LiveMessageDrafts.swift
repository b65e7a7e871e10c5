// LiveMessageDrafts: the bookkeeping a screen needs for messages that stream in pieces. Pieces
// may arrive out of order (each has a sequence number), the server may withdraw what streamed
// (a failed validation), and the finished message repeats the whole text: it replaces the
// draft, so nothing is shown twice.

import ChatStream

/// The text so far of each message being streamed, from a live conversation's events.
///
/// ```swift
/// var drafts = LiveMessageDrafts()
/// for event in events {
///     drafts.apply(event)
///     if case .messageDelta(_, let delta) = event.kind { print(drafts.text(of: delta.messageId) ?? "") }
/// }
/// ```
public struct LiveMessageDrafts: Sendable, Hashable {
    private var pieces: [String: [Int: String]] = [:]

    /// No drafts.
    public init() {}

    /// The IDs of the messages being streamed (in no particular order).
    public var messageIds: [String] { Array(pieces.keys) }

    /// The text so far of a message being streamed: its pieces in sequence order (a piece not yet
    /// received leaves no mark); `nil` when the message is not being streamed.
    public func text(of messageId: String) -> String? {
        guard let draft = pieces[messageId] else { return nil }
        return draft.keys.sorted().map { draft[$0]! }.joined()
    }

    /// Takes one event into account: a delta adds its piece (a repeated sequence number replaces
    /// the piece), a failed validation drops the draft, and the finished message (same ID) ends
    /// it, its own text being the whole text.
    ///
    /// - Returns: the ID of the message whose draft changed, if one did.
    @discardableResult
    public mutating func apply(_ event: ConversationEvent) -> String? {
        switch event.kind {
        case .messageDelta(_, let delta):
            pieces[delta.messageId, default: [:]][delta.sequenceNumber] = delta.text
            return delta.messageId
        case .messageStreamValidated(_, let validation) where !validation.isValid:
            return pieces.removeValue(forKey: validation.messageId) == nil ? nil : validation.messageId
        case .messageCreated(let message):
            return pieces.removeValue(forKey: message.id) == nil ? nil : message.id
        case .reset:
            pieces.removeAll()
            return nil
        default:
            return nil
        }
    }
}
