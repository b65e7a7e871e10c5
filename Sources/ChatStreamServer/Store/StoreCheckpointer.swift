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
// all of it, which a writer busy without a pause may never allow. So once the log holds
// `restartPages` frames the committer checkpoints once itself, after a commit: the background copy
// has already done most of the work, and the next write restarts the log. It stays bounded.
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
    }

    /// The shortest time between two background checkpoints.
    let interval: Duration
    /// The log's size in pages past which the committer checkpoints itself (see the file header).
    let restartPages: Int
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by ``close()``: ends the pause between two checkpoints.
    private let closing = DispatchSemaphore(value: 0)
    /// Signalled when the thread has closed its connection and ended.
    private let ended = DispatchSemaphore(value: 0)
    /// The log's size in pages as the last checkpoint found it.
    private let logPages = Atomic(0)
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

    /// Called by the committer after each commit: wakes the thread (once, however many commits
    /// come before it runs). True when the log has grown past ``restartPages`` and the caller
    /// should checkpoint itself, so the next write restarts the log.
    func committed() -> Bool {
        let signal = state.withLock { state -> Bool in
            guard !state.nudged, !state.closed else { return false }
            state.nudged = true
            return true
        }
        if signal { wake.signal() }
        return logPages.load(ordering: .relaxed) >= restartPages
    }

    /// Notes that the committer checkpointed (the log will restart).
    func restarted() { logPages.store(0, ordering: .relaxed) }

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
            // Its one row: busy (0 or 1), the log's size in pages, the pages copied so far.
            if let pages = try? database.first("PRAGMA wal_checkpoint(PASSIVE)", [], { $0.int(1) }) {
                logPages.store(pages, ordering: .relaxed)
            }
            runs.add(1, ordering: .relaxed)
            if closing.wait(timeout: .now() + pause) == .success { return }
        }
    }
}
