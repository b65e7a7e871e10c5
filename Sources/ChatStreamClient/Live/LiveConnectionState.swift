// LiveConnectionState: what is true of a live subscription now, for a UI to show ("Live",
// "Reconnecting in 4 s", "Live updates not available"), and the box a sequence and its iterator
// share it through.

import Synchronization

/// Where a live subscription (``ChatbaseClient/events(since:options:)``) stands.
///
/// A subscription begins ``connecting``. It is ``live`` once the server said where it begins
/// (its `subscribed` event; from then on nothing is missed, across reconnections), or, with a
/// server that does not send `subscribed`, at the first event it sends. When a connection is
/// lost it is ``reconnecting(after:)`` for the wait before the next attempt, then ``connecting``
/// again. ``unsupported``: the server has no live events route. ``stopped``: not following (not
/// started, cancelled, or ended by an error that will not heal).
///
/// ```swift
/// let banner =
///     switch list.liveState {
///     case .live: "Live"
///     case .reconnecting(let delay): "Reconnecting in \(delay.components.seconds) s"
///     case .connecting: "Connecting…"
///     case .unsupported, .stopped: ""
///     }
/// ```
public enum LiveConnectionState: Sendable, Hashable {
    /// Opening a connection; events may not be followed yet.
    case connecting
    /// Following: every change from the subscription's starting point on is (or will be) handed over.
    case live
    /// The connection was lost; the next attempt starts after this wait. Events are not lost:
    /// the next connection resumes after the last one handed over.
    case reconnecting(after: Duration)
    /// The server has no live events route.
    case unsupported
    /// Not following.
    case stopped
}

/// The state of the latest subscription made by one sequence, readable from any thread.
final class LiveStateBox: Sendable {
    private let value = Mutex<LiveConnectionState>(.stopped)

    var state: LiveConnectionState {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
