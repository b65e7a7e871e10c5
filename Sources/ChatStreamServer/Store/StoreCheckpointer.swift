// StoreCheckpointer: copies the write-ahead log back into the database on a thread of its own, so
// the store's committer never does.
//
// SQLite's automatic checkpoint runs in the connection that commits, right after the commit that
// takes the log past 1,000 pages: the committer then copies those pages into the database file
// and syncs it (about 10 ms on this machine, three times a second under 64 streamed chats), and
// every write queued meanwhile waits. Here the writer's automatic checkpoint is off. After a
// commit the committer only nudges this thread, which runs a PASSIVE checkpoint on a connection of
// its own (it never blocks the writer or a reader), at most once per `interval`.
//
// The log starts again from its beginning only when a write begins after a checkpoint that copied
// all of it, which a writer busy without a pause may never allow. So the committer watches the
// log's size after each of its commits (SQLiteDatabase.logPages, counted by a log hook). Past
// `restartPages` it checkpoints once itself, after the commit: the background copy has already
// done most of the work, and the next write restarts the log. If that copy cannot finish (this
// thread's copy holds the checkpoint lock, or a reader still reads an older snapshot), it tries
// again once the log has grown by a sixteenth of `restartPages` more (each of its copies syncs
// the database file: not after every commit while a reader holds the log). Past four times
// `restartPages` (this thread's copy stalled on a slow disk meanwhile) its checkpoint waits for
// the checkpoint lock and the readers, as SQLite's RESTART checkpoint does: writes pause until
// the log can restart, and it stays bounded.
//
// Example: 64 streamed chats commit about 60 batches a second, 130 log pages each; this thread
// copies them every 50 ms while the committer goes on, and the log is restarted about every
// 2 seconds (16,384 pages).

import ChatStreamSQLite
import Dispatch
import Foundation
import Synchronization

/// Checkpoints a store's write-ahead log from a thread of its own.
final class StoreCheckpointer: Sendable {
    private struct State {
        var nudged = false
        var closed = false
        /// The log's size in pages at the committer's last checkpoint of its own (0: none since
        /// the log last fell below ``restartPages``).
        var checkpointedAt = 0
    }

    /// The shortest time between two background checkpoints.
    let interval: Duration
    /// The log's size in pages past which the committer checkpoints itself (see the file header).
    let restartPages: Int

    /// What the committer does after a commit (``committed(logPages:)``).
    enum AfterCommit: Equatable {
        /// Nothing: this thread copies the log.
        case nothing
        /// A passive checkpoint of its own: the log is past ``restartPages``.
        case checkpoint
        /// A checkpoint that waits for the lock and the readers, so the next write restarts the
        /// log: it is past four times ``restartPages``.
        case restart
    }
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by ``close()``: ends the pause between two checkpoints.
    private let closing = DispatchSemaphore(value: 0)
    /// Signalled when the thread has closed its connection and ended.
    private let ended = DispatchSemaphore(value: 0)
    /// Background checkpoints run so far (for tests and diagnostics).
    private let runs = Atomic(0)
    private let running = Atomic(false)
    /// The thread's connection until the thread takes it.
    private let connection: Mutex<SQLiteDatabase?>

    /// Whether the thread is running (it ends after ``close()``).
    var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Starts the thread, with its own connection to the database at `path` (in WAL mode).
    init(
        path: String, options: SQLiteDatabase.Options, interval: Duration = .milliseconds(50),
        restartPages: Int = 16_384
    ) throws {
        self.interval = interval
        self.restartPages = restartPages
        var own = options
        own.checksAtOpen = false
        own.automaticCheckpoint = false
        // Not thread-safe: only the thread uses it, and lets it go (closing it) before it ends.
        connection = Mutex(try SQLiteDatabase(path: path, options: own))
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            if let database = connection.withLock({ $0.take() }) { run(database) }
            running.store(false, ordering: .releasing)
            ended.signal()
        }
        thread.name = "ConversationStore checkpoints"
        thread.start()
    }

    /// Called by the committer after each commit, with the log's size in pages then: wakes the
    /// thread (once, however many commits come before it runs), and says whether the committer
    /// should checkpoint itself (see the file header).
    func committed(logPages: Int) -> AfterCommit {
        let step = max(1, restartPages / 16)
        let (signal, action) = state.withLock { state -> (Bool, AfterCommit) in
            var action = AfterCommit.nothing
            if logPages < restartPages {
                state.checkpointedAt = 0
            } else if state.checkpointedAt == 0 || logPages >= state.checkpointedAt + step {
                action = logPages >= restartPages * 4 ? .restart : .checkpoint
            }
            if action != .nothing { state.checkpointedAt = logPages }
            guard !state.nudged, !state.closed else { return (false, action) }
            state.nudged = true
            return (true, action)
        }
        if signal { wake.signal() }
        return action
    }

    /// How many background checkpoints have run.
    var checkpointCount: Int { runs.load(ordering: .relaxed) }

    /// Ends the thread after any checkpoint under way and returns once it closed its connection
    /// (so the store's writer closes last, and SQLite's checkpoint at close removes the log).
    func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        wake.signal()
        closing.signal()
        _ = ended.wait(timeout: .now() + .seconds(30))
    }

    /// The thread: a passive checkpoint after each nudge, then a pause of ``interval``.
    private func run(_ database: SQLiteDatabase) {
        let pause = DispatchTimeInterval.milliseconds(Int(interval.pollMilliseconds))
        while true {
            wake.wait()
            let closed = state.withLock { state -> Bool in
                state.nudged = false
                return state.closed
            }
            if closed { return }
            try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
            runs.add(1, ordering: .relaxed)
            if closing.wait(timeout: .now() + pause) == .success { return }
        }
    }
}
