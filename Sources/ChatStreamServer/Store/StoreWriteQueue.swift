// StoreWriteQueue: group commit for the store's writes.
//
// A write with `synchronous=FULL` costs a sync of the log (about a millisecond or more on a real
// disk), and writes take turns, so under many connections a write waited for every sync before it
// (64 concurrent streamed chats: p50 over 500 ms). Here a write joins a queue and its caller waits;
// one committer thread of the store's own takes every write queued so far, commits them as one
// transaction (the store runs each under its own savepoint, so each is still all or nothing),
// wakes each caller with its own outcome, and goes on with what was queued meanwhile; it sleeps
// only when nothing waits. Every caller returns only after the commit that holds its write, so an
// acknowledged write is as durable as before.
//
// Why a thread of its own rather than a caller leading each batch and handing the lead to the
// next: the next leader was a sleeping thread, and on a busy machine waking it took as long as a
// third of the batch (64 streamed chats on 2 cores: 5.0 ms between batches of 13.7 ms); the
// committer is still running when one batch ends and starts the next at once.
//
// The committer runs at a higher priority than the server's other threads where the system allows
// it (Linux: a nice value 8 lower, which needs CAP_SYS_NICE or a raised RLIMIT_NICE, else it keeps
// its own; Apple platforms: the user-interactive quality of service). Every write waits for it, and
// at the same priority it was preempted by the very callers it had just woken: under 64 streamed
// chats, waking a batch's 31 callers took 1.9 ms and the cycle of 21 ms held 5 ms of waiting for a
// core; raised, 0.7 ms of a 18 ms cycle (an instrumented build), and in alternating wrk runs
// 1,604-1,704 -> 1,756-1,924 req/s, p99 62-105 -> 55-57 ms.
//
// Example: three handlers write at once while a fourth's commit is syncing. When it is done, the
// committer takes all three as one batch: one BEGIN, three savepoints, one COMMIT.

import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One write waiting for (or in) a batch: its body, whether it records live events, its outcome.
final class PendingWrite: @unchecked Sendable {
    /// The write's body (it stores its result in its caller's frame). Dropped once run, because
    /// the caller's `withoutActuallyEscaping` requires that nothing keeps it after the call.
    private var body: ((StoreTransaction) throws -> Void)?
    /// Whether the store records live events for what this write changed.
    let recording: Bool
    /// The write's error once its batch ran (nil: committed). Set by the committer before `done`.
    var error: (any Error)?
    /// What the committer is done with and leaves to this write's caller to free once woken (its
    /// change notes, events the memory tail dropped): freeing is work, and the committer's time is
    /// what every write waits for. Set by the committer before `done`.
    var leftovers: [Any] = []
    /// Signalled when the batch holding this write is over.
    fileprivate let done = DispatchSemaphore(value: 0)

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

/// The queue of writes waiting for a commit, and the thread that commits them.
final class StoreWriteQueue: Sendable {
    /// What commits a batch: runs every write in one transaction and sets each one's `error`.
    typealias Commit = @Sendable ([PendingWrite]) -> Void

    private struct State {
        var waiting: [PendingWrite] = []
        var commit: Commit?
        var started = false
        var asleep = false
        var closed = false
    }
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let batchCount = Atomic<Int>(0)
    private let committerRunning = Atomic<Bool>(false)
    private let raisedPriority = Atomic<Bool>(false)

    /// Sets what commits a batch; called once, before the first write (the committer's thread
    /// starts with the first write).
    func commitBatches(with commit: @escaping Commit) {
        state.withLock { $0.commit = commit }
    }

    /// How many batches have been committed (each one transaction), for tests and figures.
    var batches: Int { batchCount.load(ordering: .relaxed) }

    /// Whether the committer's thread is running (it starts with the first write and ends once
    /// the store is gone), for tests.
    var isCommitterRunning: Bool { committerRunning.load(ordering: .acquiring) }

    /// Queues `write` for the next batch and returns once that batch is over; rethrows the
    /// write's own error. Must not be called from a write's body (it would wait for itself).
    func submit(_ write: PendingWrite) throws {
        let (start, signal) = state.withLock { state -> (Bool, Bool) in
            precondition(!state.closed && state.commit != nil, "a write submitted to a store not open")
            state.waiting.append(write)
            let start = !state.started
            state.started = true
            let signal = state.asleep
            state.asleep = false
            return (start, signal)
        }
        if start { startCommitter() }
        if signal { wake.signal() }
        write.done.wait()
        write.leftovers.removeAll()  // freed here, on the caller's thread
        if let error = write.error { throw error }
    }

    /// Lets the committer's thread end once nothing waits (the store is going away).
    func close() {
        let signal = state.withLock { state -> Bool in
            state.closed = true
            defer { state.asleep = false }
            return state.asleep
        }
        if signal { wake.signal() }
    }

    private func startCommitter() {
        committerRunning.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            raisedPriority.store(Self.raiseThisThreadsPriority(), ordering: .releasing)
            runCommitter()
            committerRunning.store(false, ordering: .releasing)
        }
        thread.name = "ConversationStore commits"
        #if canImport(Darwin)
            thread.qualityOfService = .userInteractive
        #endif
        thread.start()
    }

    /// Whether the committer's thread runs at a raised priority (see the file header), for tests.
    var committerPriorityRaised: Bool { raisedPriority.load(ordering: .acquiring) }

    /// Lowers the calling thread's nice value by 8 (Linux: `setpriority` on a thread ID of 0 is
    /// this thread alone); true when it took. Elsewhere the thread's quality of service does it.
    private static func raiseThisThreadsPriority() -> Bool {
        #if canImport(Glibc)
            errno = 0
            let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            guard errno == 0 else { return false }
            return setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, max(-20, current - 8)) == 0
        #else
            return true
        #endif
    }

    /// Commits batches until closed with nothing waiting, sleeping while nothing waits.
    private func runCommitter() {
        while true {
            let next = state.withLock { state -> (batch: [PendingWrite], commit: Commit?)? in
                guard state.waiting.isEmpty else {
                    defer { state.waiting.removeAll(keepingCapacity: true) }
                    return (state.waiting, state.commit)
                }
                if state.closed {
                    state.commit = nil
                    return nil
                }
                state.asleep = true
                return ([], nil)
            }
            guard let (batch, commit) = next else { return }
            guard let commit else {
                wake.wait()
                continue
            }
            commit(batch)
            batchCount.add(1, ordering: .relaxed)
            for pending in batch {
                pending.discard()
                pending.done.signal()
            }
        }
    }
}
