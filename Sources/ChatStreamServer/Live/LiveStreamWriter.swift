// LiveStreamWriter: serves every long-lived stream after its head, on one thread: live event
// streams (`GET .../events`) and streamed replies (PROTOCOLS.md section 8), so an open stream
// holds no connection thread and costs a descriptor and a few hundred bytes, not a worker.
//
// The events handler sends the head and the opening (`retry:`, what a resume replays,
// `subscribed`) on its connection's thread, then hands the socket here (HTTPServerResponseWriter's
// `handOff`); a reply's handler hands it over right after the head. This thread waits on every
// stream's socket and a wake pipe with SocketPoller (epoll on Linux, kqueue on Apple platforms).
// A commit wakes it (LiveEventSignal's observer); each subscriber with nothing waiting to be
// written then pulls its events after its cursor from the store's in-memory tail, exactly as the
// thread-per-stream loop did: events are pulled, never queued per subscriber, so a slow reader
// holds at most one batch. A subscriber that lagged behind the tail needs its backlog read from
// the events table: that read runs on a reader queue of its own, never on this thread (a slow
// read would delay every stream), and the subscriber is written to when it is ready. A reply's run wakes it when it appends (ReplyRun.watch); its readers
// pull the run's events after their position the same way, and end when the run ends (cut when
// it was interrupted); a reader that goes away stops nothing, the reply is generated and stored. Writes never block: what the
// kernel does not take waits for the socket to be writable, and a subscriber that takes nothing
// for the write timeout is dropped (it resumes from its last ID). A peer that closes or resets is
// noticed at once (its socket turns readable with no data), a silent one at the next heartbeat's
// failed write (replies have no heartbeat: they are short, and end with their run). A reply
// stream that gives its connection back at its end (keep-alive) is not read while held, so the
// client's next request waits in the socket for the server: a peer gone shows as a hang-up, an
// error or a failed write. A live stream opened with a user token ends cleanly at the token's
// expiry.
//
// This file has the thread, its loop and its timers; LiveStreamWriter+Writing how one stream is
// pulled, queued, flushed and ended; LiveStreamWriter+Streams the two kinds of stream.
//
// Caps: each stream holds a reservation of the writer's AddressCaps (global, per address, per
// /24 or /64 network), separate from the connection cap, taken by the handler before the head.

import ChatStream
import Dispatch
import Foundation
import Synchronization

/// One thread writing every handed-off live event stream and streamed reply.
final class LiveStreamWriter: Sendable {
    /// A stream as the writer thread keeps it.
    struct Held {
        var stream: Stream
        var pending: [UInt8] = []
        var offset = 0
        /// When the peer last took bytes (or bytes started waiting).
        var progress: ContinuousClock.Instant
        /// When the last bytes were queued (heartbeats count from here).
        var quietSince: ContinuousClock.Instant
        var watchingWrites = false
        /// Close once `pending` is written: `.finish` ends the body cleanly, `.reset` drops it.
        var closing: Closing?
        /// A reply reader's ticket with its run (its wake-up).
        var watchTicket: Int?
        /// Which stream this is (a descriptor is reused once its stream ends).
        let serial: Int
        /// A subscriber whose backlog is being read from the events table.
        var awaitingBacklog = false

        enum Closing { case finish, reset }

        init(stream: Stream, serial: Int) {
            let now = ContinuousClock.now
            self.stream = stream
            self.serial = serial
            self.progress = now
            self.quietSince = now
        }

        var isReply: Bool {
            if case .reply = stream { return true }
            return false
        }

        /// A reply stream that gives its connection back at its end: not read while held.
        var givesConnectionBack: Bool {
            if case .reply(let reader) = stream { return reader.resumption != nil }
            return false
        }

        /// Whether it may be given more to write now.
        var isIdle: Bool { pending.isEmpty && closing == nil && !awaitingBacklog }
    }

    struct Inbox {
        var adopted: [Stream] = []
        var commits = false
        /// Reply readers (by descriptor) whose run changed.
        var replyWakes: Set<Int32> = []
        /// Backlogs read for lagging subscribers.
        var backlogs: [Backlog] = []
        var stopping = false
        var wakePending = false
        var wakeWriteFD: Int32 = -1
        var running = false
    }

    /// A lagging subscriber's events read from the events table, for the stream `serial` on `fd`.
    struct Backlog {
        let fd: Int32
        let serial: Int
        let answer: (LiveEventResumption, lastId: Int)
    }

    /// The caps every stream is counted against.
    let caps: AddressCaps
    /// Reads lagging subscribers' backlogs from the database, one at a time, off the writer thread.
    let backlogReader = DispatchQueue(label: "LiveStreamWriter.backlog")
    /// Called on the backlog reader before each read (tests hold it to show a slow read delays no one).
    let beforeBacklogRead = Mutex<(@Sendable () -> Void)?>(nil)
    /// Called on a handler's thread as it hands a live event stream over (tests hold it to show a subscriber
    /// is counted from its opening, not from when this thread takes it).
    let beforeAdopt = Mutex<(@Sendable () -> Void)?>(nil)
    let store: ConversationStore
    let settings: ChatAPIServer.LiveEvents
    let inbox = Mutex(Inbox())
    let heldCount = Atomic<Int>(0)
    let replyCount = Atomic<Int>(0)
    let finished = Mutex<DispatchSemaphore?>(nil)

    init(store: ConversationStore, settings: ChatAPIServer.LiveEvents, caps: AddressCaps) {
        self.store = store
        self.settings = settings
        self.caps = caps
        store.liveEventSignal.observe { [weak self] in self?.noteCommit() }
    }

    /// The live event streams held now.
    var count: Int { heldCount.load(ordering: .relaxed) }

    /// The reply streams held now.
    var replyStreamCount: Int { replyCount.load(ordering: .relaxed) }

    /// Starts the writer's thread (again after ``stop()``).
    func start() throws {
        let pipe = try Socket.makePipe()
        Socket.setNonBlocking(pipe.read)
        Socket.setNonBlocking(pipe.write)
        let poller = try SocketPoller()
        let done = DispatchSemaphore(value: 0)
        inbox.withLock { inbox in
            inbox.wakeWriteFD = pipe.write
            inbox.stopping = false
            inbox.running = true
        }
        finished.withLock { $0 = done }
        let thread = Thread { [self] in
            run(poller: poller, wakeReadFD: pipe.read)
            Socket.close(pipe.read)
            done.signal()
        }
        thread.name = "LiveStreamWriter"
        thread.start()
    }

    /// Ends every live stream cleanly (the last chunk), every reply stream as its run allows
    /// (cut unless it ended and all of it was taken), closes them and stops the thread. Idempotent.
    func stop() {
        let wakeFD: Int32? = inbox.withLock { inbox in
            guard inbox.running else { return nil }
            inbox.running = false
            inbox.stopping = true
            return inbox.wakeWriteFD
        }
        guard let wakeFD else { return }
        Socket.signal(wakeFD)
        finished.withLock { $0 }?.wait()
        Socket.close(wakeFD)
        // Streams handed over while stopping.
        for stream in inbox.withLock({ inbox in
            defer { inbox.adopted = [] }; return inbox.adopted
        }) {
            discard(stream)
        }
    }

    /// Resets a stream never taken (handed over while stopping), releasing its place and, for a
    /// live one, its count as a subscriber (its handler counted it).
    func discard(_ stream: Stream) {
        stream.socket.resetAndClose()
        caps.release(stream.reservation)
        if case .live = stream { store.liveEventSignal.streamsChanged(by: -1) }
    }

    /// Takes over a subscriber whose opening was sent (its reservation is released when it ends).
    func adopt(_ subscriber: Subscriber) {
        beforeAdopt.withLock { $0 }?()
        adopt(stream: .live(subscriber))
    }

    /// Takes over a reply reader whose head was sent (its reservation is released when it ends).
    func adopt(_ reader: ReplyReader) {
        adopt(stream: .reply(reader))
    }

    func adopt(stream: Stream) {
        let accepted = inbox.withLock { inbox in
            guard inbox.running else { return false }
            inbox.adopted.append(stream)
            return true
        }
        guard accepted else { return discard(stream) }
        wake()
    }

    func noteCommit() {
        inbox.withLock { $0.commits = true }
        wake()
    }

    func noteReply(_ fd: Int32) {
        inbox.withLock { _ = $0.replyWakes.insert(fd) }
        wake()
    }

    /// Writes one byte to the wake pipe unless one is already waiting there.
    func wake() {
        let fd: Int32? = inbox.withLock { inbox in
            guard inbox.running, !inbox.wakePending else { return nil }
            inbox.wakePending = true
            return inbox.wakeWriteFD
        }
        if let fd { Socket.signal(fd) }
    }

    // MARK: - The writer thread

    func run(poller: SocketPoller, wakeReadFD: Int32) {
        poller.add(wakeReadFD)
        var nextSerial = 0
        var held: [Int32: Held] = [:]
        var nextTimers = ContinuousClock.now
        while true {
            let wait = min(max(.zero, nextTimers - .now), .seconds(1))
            let ready = poller.wait(timeoutMilliseconds: max(1, wait.pollMilliseconds), capacity: 1024)
            var pullAll = false
            for readiness in ready {
                if readiness.fd == wakeReadFD {
                    _ = Socket.drainPipe(wakeReadFD)
                    let (adopted, commits, replyWakes, backlogs, stopping) = inbox.withLock { inbox in
                        defer {
                            inbox.adopted = []
                            inbox.commits = false
                            inbox.replyWakes = []
                            inbox.backlogs = []
                            inbox.wakePending = false
                        }
                        return (inbox.adopted, inbox.commits, inbox.replyWakes, inbox.backlogs, inbox.stopping)
                    }
                    if stopping {
                        for stream in adopted { discard(stream) }
                        finishAll(&held, poller: poller)
                        return
                    }
                    if !adopted.isEmpty { nextTimers = .now }
                    for stream in adopted { take(stream, &held, &nextSerial, poller: poller) }
                    for fd in replyWakes where held[fd]?.isReply == true && held[fd]?.isIdle == true {
                        pull(fd, &held, poller: poller)
                    }
                    for backlog in backlogs { deliver(backlog, &held, poller: poller) }
                    pullAll = pullAll || commits
                    continue
                }
                guard let entry = held[readiness.fd] else { continue }
                if readiness.failed && entry.givesConnectionBack {
                    // Not read while held: a hang-up or error is all that shows, and ends it.
                    drop(readiness.fd, &held, poller: poller)
                    continue
                }
                if readiness.readable || readiness.failed {
                    // A client sends nothing after its request: a close or reset ends it.
                    if !entry.stream.socket.discardInput() {
                        drop(readiness.fd, &held, poller: poller)
                        continue
                    }
                }
                if readiness.writable {
                    flush(readiness.fd, &held, poller: poller)
                    // What came while bytes waited.
                    if held[readiness.fd]?.isIdle == true { pull(readiness.fd, &held, poller: poller) }
                }
            }
            if pullAll {
                for fd in Array(held.keys) where held[fd]?.isReply == false && held[fd]?.isIdle == true {
                    pull(fd, &held, poller: poller)
                }
            }
            let now = ContinuousClock.now
            if now >= nextTimers {
                nextTimers = checkTimers(&held, poller: poller, now: now)
            }
        }
    }

    /// Starts serving an adopted stream, and sends what came since its handler let go of it.
    func take(_ stream: Stream, _ held: inout [Int32: Held], _ nextSerial: inout Int, poller: SocketPoller) {
        let fd = stream.socket.fd
        Socket.setNonBlocking(fd)
        nextSerial += 1
        var entry = Held(stream: stream, serial: nextSerial)
        poller.add(fd, readable: !entry.givesConnectionBack)
        switch stream {
        case .live:
            // Counted by its handler as a subscriber already (LiveEventSignal), before its opening.
            heldCount.add(1, ordering: .relaxed)
        case .reply(let reader):
            replyCount.add(1, ordering: .relaxed)
            entry.watchTicket = reader.run.watch { [weak self] in self?.noteReply(fd) }
        }
        held[fd] = entry
        pull(fd, &held, poller: poller)
    }

    /// Heartbeats, token expiry and stalled readers; returns when to look again.
    func checkTimers(_ held: inout [Int32: Held], poller: SocketPoller, now: ContinuousClock.Instant)
        -> ContinuousClock.Instant
    {
        var next = now + settings.heartbeat
        let epoch = Date().timeIntervalSince1970
        for fd in Array(held.keys) {
            guard var entry = held[fd] else { continue }
            let subscriber: Subscriber
            switch entry.stream {
            case .live(let live): subscriber = live
            case .reply(let reader):
                guard !entry.pending.isEmpty else { continue }
                if now - entry.progress >= reader.writeTimeout {
                    drop(fd, &held, poller: poller)
                } else {
                    next = min(next, entry.progress + reader.writeTimeout)
                }
                continue
            }
            if !entry.pending.isEmpty {
                if now - entry.progress >= settings.writeTimeout {
                    drop(fd, &held, poller: poller)
                    continue
                }
                next = min(next, entry.progress + settings.writeTimeout)
                continue
            }
            if let until = subscriber.tokenAcceptedUntil, epoch >= until, entry.closing == nil {
                entry.closing = .finish
                held[fd] = entry
                enqueue(fd, [], &held, poller: poller)
                continue
            }
            if let until = subscriber.tokenAcceptedUntil {
                next = min(next, now + .milliseconds(Int64(max(0, (until - epoch) * 1000)) + 1))
            }
            if now - entry.quietSince >= settings.heartbeat {
                enqueue(fd, [Array(": ping\n\n".utf8)], &held, poller: poller)
                next = min(next, now + settings.heartbeat)
            } else {
                next = min(next, entry.quietSince + settings.heartbeat)
            }
        }
        // At least once a second: a stream that started waiting since is checked for a stall.
        return min(max(next, now + .milliseconds(20)), now + .seconds(1))
    }
}
