// StoreWriteQueue: group commit for the store's writes.
//
// A write with `synchronous=FULL` costs a sync of the log (about a millisecond or more on a real
// disk), and writes take turns, so under many connections a write waited for every sync before it
// (64 concurrent streamed chats: p50 over 500 ms). Here a write joins a queue; the first caller
// to find no batch running leads: it takes every write queued so far, commits them as one
// transaction (the store runs each under its own savepoint, so each is still all or nothing), and
// wakes each of them with its own outcome. Then it hands the lead to the oldest write queued
// meanwhile (whose caller was waiting anyway) and returns its own result, so no caller runs
// other callers' batches for long. Every caller returns only after the commit that holds its
// write, so an acknowledged write is as durable as before.
//
// Example: three handlers write at once while a fourth's commit is syncing. When it is done, the
// first of the three leads a batch of all three: one BEGIN, three savepoints, one COMMIT.

import Dispatch
import Synchronization

/// One write waiting for (or in) a batch: its body, whether it records live events, its outcome.
final class PendingWrite: @unchecked Sendable {
    /// The write's body (it stores its result in its caller's frame). Dropped once run, because
    /// the caller's `withoutActuallyEscaping` requires that nothing keeps it after the call.
    private var body: ((StoreTransaction) throws -> Void)?
    /// Whether the store records live events for what this write changed.
    let recording: Bool
    /// The write's error once its batch ran (nil: committed). Set by the leader before `done`.
    var error: (any Error)?
    /// Signalled when the batch holding this write is over, or when this write is to lead.
    fileprivate let done = DispatchSemaphore(value: 0)
    /// Set when this write's caller is to lead the next batch rather than read its outcome.
    fileprivate var leads = false

    init(recording: Bool, _ body: @escaping (StoreTransaction) throws -> Void) {
        self.recording = recording
        self.body = body
    }

    /// Runs the body once (inside its savepoint) and lets it go.
    func run(_ store: StoreTransaction) throws {
        let body = self.body
        self.body = nil
        try body?(store)
    }

    /// Lets the body go without running it (its batch failed before reaching it).
    func discard() { body = nil }
}

/// The queue of writes waiting for a commit, and who leads the next batch.
final class StoreWriteQueue: Sendable {
    private struct State {
        var waiting: [PendingWrite] = []
        var leading = false
    }
    private let state = Mutex(State())
    private let batchCount = Atomic<Int>(0)

    /// How many batches have been committed (each one transaction), for tests and figures.
    var batches: Int { batchCount.load(ordering: .relaxed) }

    /// Commits `write` in a batch run by `commit` (on this thread when this caller leads, else on
    /// the leader's), returning once that batch is over; rethrows the write's own error.
    func submit(_ write: PendingWrite, commit: ([PendingWrite]) -> Void) throws {
        let leads = state.withLock { state in
            state.waiting.append(write)
            if state.leading { return false }
            state.leading = true
            return true
        }
        if !leads {
            write.done.wait()
            if !write.leads {
                if let error = write.error { throw error }
                return
            }
        }
        // Lead one batch: every write queued so far (this one among them).
        let batch = state.withLock { state in
            let batch = state.waiting
            state.waiting.removeAll(keepingCapacity: true)
            return batch
        }
        commit(batch)
        batchCount.add(1, ordering: .relaxed)
        for pending in batch { pending.discard() }
        let next: PendingWrite? = state.withLock { state in
            guard let next = state.waiting.first else {
                state.leading = false
                return nil
            }
            next.leads = true
            return next
        }
        for pending in batch where pending !== write { pending.done.signal() }
        next?.done.signal()
        if let error = write.error { throw error }
    }
}
