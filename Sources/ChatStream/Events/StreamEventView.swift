/// A ``StreamEvent`` lent by the decoder: a text delta's text comes as UTF-8 bytes in the
/// decoder's own buffers, so decoding one makes no `String` for it and allocates nothing. Every
/// other event is an owned ``StreamEvent``.
///
/// A view is valid only during the call that receives it: copy what you keep (``owned`` makes
/// the ``StreamEvent``). The bytes are checked UTF-8 with escapes resolved, exactly the text the
/// event would hold. Views carry the same events in the same order as
/// ``StreamDecoder/feed(_:emit:)``; this is the way to read a stream with the least work per
/// event, for a reader that copies the text where it goes (a text buffer, a socket, a view).
///
/// ```swift
/// var text: [UInt8] = []
/// try decoder.feedViews(chunk) { event in
///     switch event {
///     case .textDelta(_, let delta): delta.append(to: &text)
///     case .event(let event): handle(event)
///     }
/// }
/// ```
public enum StreamEventView {
    /// A piece of a text part: the part's ID, and the text as UTF-8 (see
    /// ``StreamEvent/textDelta(id:delta:)``).
    case textDelta(id: String, delta: CheckedUTF8)
    /// Any other event, owned (never a text delta).
    case event(StreamEvent)

    /// The event as an owned ``StreamEvent``, its text copied into `String`s.
    public var owned: StreamEvent {
        switch self {
        case .textDelta(let id, let delta): .textDelta(id: id, delta: delta.string)
        case .event(let event): event
        }
    }

    /// Lends `event` to a reader of views: an owned text delta (from a dialect outside the package,
    /// or a decoder without a byte path) as ``textDelta(id:delta:)``, so a reader of views meets
    /// every text delta there; any other event as ``event(_:)``.
    @inlinable @inline(__always)
    static func lend(_ event: StreamEvent, _ body: (StreamEventView) throws -> Void) throws {
        if case .textDelta(let id, let text) = event {
            return try CheckedUTF8.lending(text) { try body(.textDelta(id: id, delta: $0)) }
        }
        try body(.event(event))
    }
}
