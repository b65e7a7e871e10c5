// HistoryStore+Checkpoint: the write-ahead log copied back into the database on a thread of its
// own while the client waits for a reply, so the next launch has little of it to read back.
//
// The store's connection stays open for the life of the process, and a command-line run ends
// without closing it; the next process to open the file rebuilds the log's index by reading every
// frame written since the log last started from its beginning (SQLite's recovery). With SQLite's
// automatic checkpoint alone that is up to 1,000 pages: a `chatstream chat` of the bench's
// 10,000-word message writes about 120, so its open read back 2-4 MB, 1.2 ms of a 50 ms run.
// Closing at exit instead costs two fsyncs on the way out (measured: more than it saves).
//
// So when a streamed reply has been asked for (the client has nothing to do until the server
// answers), a second connection runs a PASSIVE checkpoint on a thread of its own: it never blocks
// the store's writer or readers, and when it has copied every frame the store's next write starts
// the log again from its beginning. The next open then reads back only what came after (the
// reply, about 60 pages). One at a time; an in-memory store has no log.

import ChatStreamSQLite
import Foundation
import Synchronization

extension HistoryStore {
    /// Starts copying the write-ahead log back into the database on a thread of its own, unless
    /// a copy is under way; `done` (tests) runs on that thread when it has finished.
    package func checkpointInBackground(done: (@Sendable () -> Void)? = nil) {
        guard path != ":memory:",
            checkpointing.compareExchange(
                expected: false, desired: true, ordering: .acquiringAndReleasing
            ).exchanged
        else { return }
        let path = path
        let thread = Thread { [self] in
            var options = Self.options
            options.automaticCheckpoint = false
            // A store removed meanwhile (a test's) is not made again.
            options.createsMissingFile = false
            // Never waits for a lock: a checkpoint that finds one busy does what it can.
            options.busyTimeoutMilliseconds = 0
            if let database = try? SQLiteDatabase(path: path, options: options) {
                try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
            }
            self.checkpointing.store(false, ordering: .releasing)
            done?()
        }
        thread.name = "HistoryStore checkpoint"
        thread.start()
    }
}
