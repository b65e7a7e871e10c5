// ConversationStore: the server's state in one SQLite database (a file in WAL mode, or in memory).
//
// Handlers run on many connection threads at once. Writes share one connection behind a lock, so
// each runs alone; reads of a database file run on a small pool of read-only connections, each in
// a read transaction, so a slow read (a search through large histories) holds no lock any writer
// or other reader waits on (WAL mode lets readers and the writer proceed together); an in-memory
// database has one connection, which reads share with writes. A read waits for a connection at
// most `readWait`, then answers 503 with `Retry-After` (a queue of slow searches cannot hold every
// other read for seconds), and searches take at most `searchReaders` of the connections at once, so
// the others stay free for lists and histories. A `write` is one transaction:
// it commits before the handler answers, and when its body or the commit throws nothing of it
// stays (the handler then answers 500, or the body's own API error). With `synchronous=FULL` a
// committed write survives a crash of the process and a power loss. Writes that arrive while one
// commits wait and then commit together, each under its own savepoint (StoreWriteQueue.swift): one
// sync of the log for the batch instead of one each, which is what bounded streamed chats under
// many connections.
//
// Live events are rows of the same database: a write's changes are turned into events inside its
// transaction (StoreTransaction+LiveEvents.swift), and subscribers are woken after it committed.

import ChatStream
import ChatStreamSQLite
import Dispatch
import Foundation
import Synchronization

/// The server's conversations in a SQLite database.
///
/// Other parts of the server reach the data through ``read(_:)`` and ``write(_:)`` and the typed
/// operations of ``StoreTransaction``; no SQL leaves the store's files.
final class ConversationStore: Sendable {
    private let database: SQLiteDatabase
    /// Held while a batch of writes runs, and by reads of an in-memory database.
    private let lock = NSLock()
    /// Writes waiting for the next commit, and the thread that commits them.
    let writeQueue = StoreWriteQueue()
    /// Copies the write-ahead log into the database off the committer (nil in memory).
    let checkpointer: StoreCheckpointer?
    /// Idle read-only connections (empty in memory: reads then use ``database`` under ``lock``).
    private let readers: Mutex<[SQLiteDatabase]>
    private let readerSlots: DispatchSemaphore
    /// The connections searches may hold at once (fewer than ``readerSlots``).
    private let searchSlots: DispatchSemaphore
    /// The longest a read waits for a connection before 503.
    private let readWait: Duration
    private let hasReaders: Bool
    /// The most characters of a `lastMessage` preview.
    let previewLength: Int
    /// The database file, nil in memory.
    let path: String?
    /// Live events held per audience (a count of 0 records none: the live extension is off).
    let liveEventBounds: LiveEventBounds
    /// Wakes live-event subscribers after a transaction that recorded events committed.
    let liveEventSignal = LiveEventSignal()
    /// The newest live events in memory, for the subscribers a commit wakes.
    private let liveEventTail: LiveEventTail
    /// The key that seals page cursors (see PageCursor), kept in the database.
    let cursorKey: [UInt8]
    /// The longest any write has held the write lock (transaction and commit with its sync).
    private let longestHold = Mutex(Duration.zero)
    /// The writes committed so far (``committedWriteCount``).
    private let committed = Atomic(0)
    /// Where `recover` moved a damaged database and its log (empty when nothing was moved).
    let movedAside: [String]

    /// Opens the database at `path` (created when missing; a JSON data file of the earlier format
    /// found there is imported first and kept beside it as `<path>.json-backup`), or an in-memory
    /// one when `path` is nil, holding the last `liveEventCapacity` live events of each audience
    /// (at most `liveEventBytes` of their JSON) and in memory the newest events up to `tailBytes`.
    /// The database and its -wal and -shm files are 0600, in a directory created 0700 when missing.
    /// Throws ``StoreOpenError`` for a file the process cannot write, and (unless `recover`) for an
    /// empty file that was there before or a damaged database or log (`recover` moves those aside,
    /// listed in ``movedAside``, and starts a new store). A file's write-ahead log is copied back by
    /// a thread of the store's own at most every `checkpointInterval`, and restarted once it holds
    /// `logRestartPages` pages (StoreCheckpointer); with no interval, by SQLite's automatic
    /// checkpoint in the committing connection instead (a test that copies the files as a crash
    /// leaves them needs the log's last commits not yet copied back).
    init(
        path: String?, options: SQLiteDatabase.Options = .durable, liveEventCapacity: Int = 0,
        liveEventBytes: Int = 1 << 20, inlineMessageBytes: Int = 4 << 10, tailBytes: Int = 8 << 20,
        previewLength: Int = 200, readerCount: Int = 4, searchReaders: Int? = nil, readWait: Duration = .seconds(2),
        recover: Bool = false, logRestartPages: Int = 16_384, checkpointInterval: Duration? = .milliseconds(50)
    ) throws {
        self.readWait = readWait
        self.path = path
        self.liveEventBounds = LiveEventBounds(
            count: liveEventCapacity, bytes: liveEventBytes, inlineMessageBytes: inlineMessageBytes)
        self.previewLength = previewLength
        var movedAside: [String] = []
        if let path {
            // An empty file the store did not just create is a database lost (truncated, or
            // replaced): starting on it would be starting empty without a word.
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
            if size == 0, !recover { throw StoreOpenError.emptyFile(path) }
            if let reason = StoreDamage.problem(at: path) {
                guard recover else { throw StoreOpenError.damaged(path, reason: reason) }
                movedAside = try StoreDamage.moveAside(path)
            }
            try StorePersistence.importLegacyFile(at: path, options: options)
            try StoreFiles.prepare(path)
        }
        let database: SQLiteDatabase
        // The log is copied back by the checkpointer's thread, not by the committing connection.
        var writer = options
        writer.automaticCheckpoint = path == nil || checkpointInterval == nil
        do {
            database = try Self.open(path, options: writer)
        } catch let error as StoreOpenError {
            guard recover, let path, case .damaged = error else { throw error }
            movedAside += try StoreDamage.moveAside(path)
            try StoreFiles.prepare(path)
            database = try Self.open(path, options: writer)
        }
        self.movedAside = movedAside
        if let path { try StoreFiles.restrict(path) }
        self.database = database
        checkpointer = try checkpointInterval.flatMap { interval in
            try path.map {
                try StoreCheckpointer(path: $0, options: options, interval: interval, restartPages: logRestartPages)
            }
        }
        var pool: [SQLiteDatabase] = []
        if let path {
            var readOnly = options
            readOnly.readOnly = true
            for _ in 0..<max(1, readerCount) { pool.append(try SQLiteDatabase(path: path, options: readOnly)) }
        }
        let log = StoreTransaction(database: database)
        liveEventTail = LiveEventTail(
            lastId: try log.lastEventId(), evictedThrough: try log.eventEvictions(), byteCapacity: tailBytes)
        hasReaders = !pool.isEmpty
        readerSlots = DispatchSemaphore(value: pool.count)
        searchSlots = DispatchSemaphore(value: max(1, min(searchReaders ?? pool.count / 2, pool.count)))
        readers = Mutex(pool)
        cursorKey = try database.transaction {
            if let key = try database.first("SELECT value FROM secrets WHERE name = 'cursor'", [], { $0.blob(0) }) {
                return key
            }
            var generator = SystemRandomNumberGenerator()
            let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            try database.run("INSERT INTO secrets(name, value) VALUES ('cursor', ?1)", [SQLiteValue.blob(key)])
            return key
        }
        // Weak: the committer's thread must not keep the store (its callers do while they wait).
        writeQueue.commitBatches { [weak self] batch in self?.commit(batch) }
    }

    deinit {
        writeQueue.close()
        checkpointer?.close()
    }

    /// Opens and migrates the writer's connection; a file SQLite finds damaged (quick check, not a
    /// database) throws ``StoreOpenError/damaged(_:reason:)``.
    private static func open(_ path: String?, options: SQLiteDatabase.Options) throws -> SQLiteDatabase {
        do {
            let database = try SQLiteDatabase(path: path ?? ":memory:", options: options)
            if let path, database.isReadOnly { throw StoreOpenError.notWritable(path) }
            try database.migrate(StoreSchema.migrations)
            return database
        } catch let error as SQLiteError where [11, 26].contains(error.code & 0xff) {
            // SQLITE_CORRUPT, SQLITE_NOTADB
            throw StoreOpenError.damaged(path ?? ":memory:", reason: error.message)
        }
    }

    /// Runs `body` on the store without a write transaction (it must not change anything). A
    /// `search` (a text filter that may scan histories) waits for one of the connections searches
    /// may use. Throws 503 `STORE_BUSY` with `Retry-After: 1` when no connection frees up within
    /// the read wait.
    func read<R>(search: Bool = false, _ body: (StoreTransaction) throws -> R) throws -> R {
        guard hasReaders else {
            lock.lock()
            defer { lock.unlock() }
            return try body(StoreTransaction(database: database, previewLength: previewLength))
        }
        let deadline = DispatchTime.now() + .milliseconds(Int(readWait.pollMilliseconds))
        if search {
            guard searchSlots.wait(timeout: deadline) == .success else { throw APIError.storeBusy }
        }
        defer { if search { searchSlots.signal() } }
        guard readerSlots.wait(timeout: deadline) == .success else { throw APIError.storeBusy }
        let reader = readers.withLock { $0.removeLast() }
        defer {
            readers.withLock { $0.append(reader) }
            readerSlots.signal()
        }
        return try reader.readTransaction {
            try body(StoreTransaction(database: reader, previewLength: previewLength))
        }
    }

    /// Runs `body` in one transaction with the live events of what it changed: all of it is
    /// committed before this returns, or none when it throws (the error is rethrown). Live
    /// subscribers are woken after the commit.
    ///
    /// Writes that arrive while another is committing are committed together (group commit, see
    /// StoreWriteQueue.swift): each body still runs alone and all or nothing, under its own
    /// savepoint, and returns only once the commit that holds it is durable.
    @discardableResult
    func write<R>(recordingEvents: Bool = true, _ body: (StoreTransaction) throws -> R) throws -> R {
        try withoutActuallyEscaping(body) { body in
            var result: R?
            let pending = PendingWrite(recording: recordingEvents && liveEventBounds.count > 0) { store in
                result = try body(store)
            }
            try writeQueue.submit(pending)
            guard let result else { preconditionFailure("a write that succeeded left no result") }
            return result
        }
    }

    /// Runs `batch` in one transaction (one part each) and records each part's outcome; then the
    /// committed parts' events join the in-memory tail, in ID order, and subscribers are woken.
    private func commit(_ batch: [PendingWrite]) {
        lock.lock()
        let acquired = ContinuousClock.now
        var changes: [StoreChanges?] = Array(repeating: nil, count: batch.count)
        // The store-wide sequence is read by the batch's first part that needs it, handed from
        // each committed part to the next, and written back once before the commit: two statements
        // a batch instead of two a write. A part that fails hands on what it was given (its
        // numbers were rolled back with it).
        var sequence: (last: Int, moved: Bool)?
        let outcome = Result {
            try database.transaction(
                parts: batch.count,
                { index in
                    let store = StoreTransaction(database: database, previewLength: previewLength)
                    store.changes.sequence = sequence.map { ($0.last, false) }
                    try batch[index].run(store)
                    if batch[index].recording { try store.recordLiveEvents(bounds: liveEventBounds) }
                    try store.finish(savingSequence: false)
                    changes[index] = store.changes
                    if let given = store.changes.sequence {
                        sequence = (given.last, given.moved || sequence?.moved == true)
                    }
                },
                beforeCommit: {
                    if let sequence, sequence.moved { try StoreTransaction.saveSequence(sequence.last, in: database) }
                })
        }
        // Past its bound the log is checkpointed here, so the next write restarts it
        // (StoreCheckpointer); otherwise the checkpointer's thread is only nudged.
        if case .success = outcome, let checkpointer {
            switch checkpointer.committed(logPages: database.logPages ?? 0) {
            case .nothing: break
            case .checkpoint: try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
            case .restart: try? database.execute("PRAGMA wal_checkpoint(RESTART)")
            }
        }
        var recorded = false
        var committedWrites = 0
        for (index, pending) in batch.enumerated() {
            switch outcome {
            case .failure(let error): pending.error = error
            case .success(let errors):
                pending.error = errors[index]
                if errors[index] == nil { committedWrites += 1 }
                if errors[index] == nil, let events = changes[index] {
                    let dropped = liveEventTail.append(events.recordedEvents, evictions: events.evictions)
                    if !dropped.isEmpty { pending.leftovers.append(dropped) }
                    recorded = recorded || !events.recordedEvents.isEmpty
                }
            }
            // The write's notes (its events, its messages as stored, what it kept) are freed by
            // its caller once woken, not here: see PendingWrite.leftovers.
            if let notes = changes[index] { pending.leftovers.append(notes) }
        }
        let held = ContinuousClock.now - acquired
        lock.unlock()
        longestHold.withLock { $0 = max($0, held) }
        committed.add(committedWrites, ordering: .relaxed)
        if recorded { liveEventSignal.notify() }
    }

    /// How many writes have committed since the store opened (each ``write(recordingEvents:_:)``
    /// that returned without an error, whatever batch held it).
    var committedWriteCount: Int { committed.load(ordering: .relaxed) }

    /// The longest any batch of ``write(recordingEvents:_:)`` has held the write lock so far: every
    /// other write waited at most this long for it.
    var longestWriteLockHold: Duration { longestHold.withLock { $0 } }

    /// Records one live event about `conversationId` that changes no conversation (typing), in a
    /// transaction of its own. Does nothing when the live extension is off or there is no such conversation.
    func recordLiveEvent(type: String, data: JSONTree, conversationId: String) {
        guard liveEventBounds.count > 0 else { return }
        _ = try? write { store in
            try store.recordLiveEvent(type: type, data: data, conversationId: conversationId, bounds: liveEventBounds)
        }
    }

    /// The events the in-memory tail holds and the bytes of their JSON.
    var liveEventTailHeld: (count: Int, bytes: Int) { liveEventTail.held }

    /// What a subscriber of `audiences` gets after event `id`, and the log's last ID. Throws when
    /// the events table could not be read (never an empty answer in its place: that would look
    /// like a log with nothing after `id`, and a resume from 0 would skip what it holds).
    func liveEvents(after id: Int, audiences: [String]) throws -> (LiveEventResumption, lastId: Int) {
        try liveEventsInMemory(after: id, audiences: audiences)
            ?? liveEventsFromDatabase(after: id, audiences: audiences)
    }

    /// As ``liveEvents(after:audiences:)`` from the in-memory tail alone (it never waits); nil
    /// when the tail does not reach back to `id`.
    func liveEventsInMemory(after id: Int, audiences: [String]) -> (LiveEventResumption, lastId: Int)? {
        liveEventTail.events(after: id, audiences: audiences)
    }

    /// As ``liveEvents(after:audiences:)`` from the events table (a read transaction: it may wait).
    func liveEventsFromDatabase(after id: Int, audiences: [String]) throws -> (LiveEventResumption, lastId: Int) {
        try read { store in try store.liveEvents(after: id, audiences: audiences) }
    }
}
