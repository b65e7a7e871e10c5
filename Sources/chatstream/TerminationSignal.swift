// TerminationSignal: SIGINT and SIGTERM as something to await.
//
// The two signals are ignored process-wide (so no thread, whatever its signal mask, dies of them)
// and watched by dispatch signal sources, which see them all the same.

import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM, awaited: made before the server starts, so a signal that comes early is
/// not lost (it is ignored by default from then on and reported to the sources).
final class TerminationSignal {
    /// Whether a signal came, and the task waiting for one.
    private final class Latch: Sendable {
        struct State {
            var received = false
            var waiter: CheckedContinuation<Void, Never>?
        }
        let state = Mutex(State())
    }
    private let latch = Latch()
    private let sources: [any DispatchSourceSignal]

    init() {
        let signals = [SIGINT, SIGTERM]
        for number in signals { _ = signal(number, SIG_IGN) }
        sources = signals.map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in sources {
            source.setEventHandler { [latch] in
                let waiter = latch.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.received = true
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
            source.resume()
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    /// Returns once either signal has come.
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = latch.state.withLock { state -> Bool in
                if state.received { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
