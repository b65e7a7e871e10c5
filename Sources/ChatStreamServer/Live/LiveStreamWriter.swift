// LiveStreamWriter: serves every live event stream (`GET .../events`) after its head, on one
// thread, so an open subscription holds no connection thread and costs a descriptor and a few
// hundred bytes, not a worker.
//
// The events handler sends the head and the opening (`retry:`, what a resume replays,
// `subscribed`) on its connection's thread, then hands the socket here (HTTPServerResponseWriter's
// `handOff`). This thread waits on every subscriber's socket and a wake pipe with SocketPoller
// (epoll on Linux, kqueue on Apple platforms). A commit wakes it (LiveEventSignal's observer); each
// subscriber with nothing waiting to be written then pulls its events after its cursor from the
// store's in-memory tail, exactly as the thread-per-stream loop did: events are pulled, never
// queued per subscriber, so a slow reader holds at most one batch. Writes never block: what the
// kernel does not take waits for the socket to be writable, and a subscriber that takes nothing
// for the write timeout is dropped (it resumes from its last ID). A peer that closes or resets is
// noticed at once (its socket turns readable with no data), a silent one at the next heartbeat's
// failed write. A stream opened with a user token ends cleanly at the token's expiry.
//
// Caps: each stream holds a reservation of the writer's AddressCaps (global, per address, per
// /24 or /64 network), separate from the connection cap, taken by the handler before the head.

import ChatStream
import Dispatch
import Foundation
import Synchronization

/// One thread writing every handed-off live event stream.
final class LiveStreamWriter: Sendable {
    /// A subscription handed off after its opening.
    struct Subscriber: Sendable {
        let socket: Socket
        let chunked: Bool
        let audiences: [String]
        /// The last event ID the subscriber has (or was told to skip to).
        var cursor: Int
        /// When the user token it was opened with expires (epoch seconds).
        let tokenAcceptedUntil: Double?
        /// Events sent so far (for the `dropEvery` fault).
        var sent: Int
        let reservation: AddressCaps.Reservation
        /// Which events its route's agent hears (conversations are kept per agent); nil: all.
        let agentFilter: LiveEventAgentFilter?

        init(
            socket: Socket, chunked: Bool, audiences: [String], cursor: Int, tokenAcceptedUntil: Double?, sent: Int,
            reservation: AddressCaps.Reservation, agentFilter: LiveEventAgentFilter? = nil
        ) {
            self.agentFilter = agentFilter
            self.socket = socket
            self.chunked = chunked
            self.audiences = audiences
            self.cursor = cursor
            self.tokenAcceptedUntil = tokenAcceptedUntil
            self.sent = sent
            self.reservation = reservation
        }
    }

    /// A subscriber as the writer thread keeps it.
    private struct Held {
        var subscriber: Subscriber
        var pending: [UInt8] = []
        var offset = 0
        /// When the peer last took bytes (or bytes started waiting).
        var progress: ContinuousClock.Instant
        /// When the last bytes were queued (heartbeats count from here).
        var quietSince: ContinuousClock.Instant
        var watchingWrites = false
        /// Close once `pending` is written: `.finish` ends the body cleanly, `.reset` drops it.
        var closing: Closing?

        enum Closing { case finish, reset }

        init(subscriber: Subscriber) {
            let now = ContinuousClock.now
            self.subscriber = subscriber
            self.progress = now
            self.quietSince = now
        }
    }

    private struct Inbox {
        var adopted: [Subscriber] = []
        var commits = false
        var stopping = false
        var wakePending = false
        var wakeWriteFD: Int32 = -1
        var running = false
    }

    /// The caps every stream is counted against.
    let caps: AddressCaps
    private let store: ConversationStore
    private let settings: ChatAPIServer.LiveEvents
    private let inbox = Mutex(Inbox())
    private let heldCount = Atomic<Int>(0)
    private let finished = Mutex<DispatchSemaphore?>(nil)

    init(store: ConversationStore, settings: ChatAPIServer.LiveEvents, caps: AddressCaps) {
        self.store = store
        self.settings = settings
        self.caps = caps
        store.liveEventSignal.observe { [weak self] in self?.noteCommit() }
    }

    /// The streams held now.
    var count: Int { heldCount.load(ordering: .relaxed) }

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

    /// Ends every stream cleanly (the last chunk), closes them and stops the thread. Idempotent.
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
        // Subscribers handed over while stopping.
        for subscriber in inbox.withLock({ inbox in
            defer { inbox.adopted = [] }; return inbox.adopted
        }) {
            subscriber.socket.resetAndClose()
            caps.release(subscriber.reservation)
        }
    }

    /// Takes over a subscriber whose opening was sent (its reservation is released when it ends).
    func adopt(_ subscriber: Subscriber) {
        let accepted = inbox.withLock { inbox in
            guard inbox.running else { return false }
            inbox.adopted.append(subscriber)
            return true
        }
        guard accepted else {
            subscriber.socket.resetAndClose()
            caps.release(subscriber.reservation)
            return
        }
        wake()
    }

    private func noteCommit() {
        inbox.withLock { $0.commits = true }
        wake()
    }

    /// Writes one byte to the wake pipe unless one is already waiting there.
    private func wake() {
        let fd: Int32? = inbox.withLock { inbox in
            guard inbox.running, !inbox.wakePending else { return nil }
            inbox.wakePending = true
            return inbox.wakeWriteFD
        }
        if let fd { Socket.signal(fd) }
    }

    // MARK: - The writer thread

    private func run(poller: SocketPoller, wakeReadFD: Int32) {
        poller.add(wakeReadFD)
        var held: [Int32: Held] = [:]
        var nextTimers = ContinuousClock.now
        while true {
            let wait = min(max(.zero, nextTimers - .now), .seconds(1))
            let ready = poller.wait(timeoutMilliseconds: max(1, wait.pollMilliseconds), capacity: 1024)
            var pullAll = false
            for readiness in ready {
                if readiness.fd == wakeReadFD {
                    _ = Socket.drainPipe(wakeReadFD)
                    let (adopted, commits, stopping) = inbox.withLock { inbox in
                        defer {
                            inbox.adopted = []
                            inbox.commits = false
                            inbox.wakePending = false
                        }
                        return (inbox.adopted, inbox.commits, inbox.stopping)
                    }
                    if stopping {
                        for subscriber in adopted {
                            subscriber.socket.resetAndClose()
                            caps.release(subscriber.reservation)
                        }
                        finishAll(&held, poller: poller)
                        return
                    }
                    if !adopted.isEmpty { nextTimers = .now }
                    for subscriber in adopted {
                        let fd = subscriber.socket.fd
                        Socket.setNonBlocking(fd)
                        poller.add(fd)
                        held[fd] = Held(subscriber: subscriber)
                        heldCount.add(1, ordering: .relaxed)
                        store.liveEventSignal.streamsChanged(by: 1)
                        // Events committed between the opening and now.
                        pull(fd, &held, poller: poller)
                    }
                    pullAll = pullAll || commits
                    continue
                }
                guard held[readiness.fd] != nil else { continue }
                if readiness.readable || readiness.failed {
                    // A subscriber sends nothing after its request: a close or reset ends it.
                    if !held[readiness.fd]!.subscriber.socket.discardInput() {
                        drop(readiness.fd, &held, poller: poller)
                        continue
                    }
                }
                if readiness.writable { flush(readiness.fd, &held, poller: poller) }
            }
            if pullAll {
                for fd in Array(held.keys) where held[fd]?.pending.isEmpty == true && held[fd]?.closing == nil {
                    pull(fd, &held, poller: poller)
                }
            }
            let now = ContinuousClock.now
            if now >= nextTimers {
                nextTimers = checkTimers(&held, poller: poller, now: now)
            }
        }
    }

    /// Heartbeats, token expiry and stalled readers; returns when to look again.
    private func checkTimers(_ held: inout [Int32: Held], poller: SocketPoller, now: ContinuousClock.Instant)
        -> ContinuousClock.Instant
    {
        var next = now + settings.heartbeat
        let epoch = Date().timeIntervalSince1970
        for fd in Array(held.keys) {
            guard var entry = held[fd] else { continue }
            if !entry.pending.isEmpty {
                if now - entry.progress >= settings.writeTimeout {
                    drop(fd, &held, poller: poller)
                    continue
                }
                next = min(next, entry.progress + settings.writeTimeout)
                continue
            }
            if let until = entry.subscriber.tokenAcceptedUntil, epoch >= until, entry.closing == nil {
                entry.closing = .finish
                held[fd] = entry
                enqueue(fd, [], &held, poller: poller)
                continue
            }
            if let until = entry.subscriber.tokenAcceptedUntil {
                next = min(next, now + .milliseconds(Int64(max(0, (until - epoch) * 1000)) + 1))
            }
            if now - entry.quietSince >= settings.heartbeat {
                enqueue(fd, Array(": ping\n\n".utf8), &held, poller: poller)
                next = min(next, now + settings.heartbeat)
            } else {
                next = min(next, entry.quietSince + settings.heartbeat)
            }
        }
        // At least once a second: a stream that started waiting since is checked for a stall.
        return min(max(next, now + .milliseconds(20)), now + .seconds(1))
    }

    /// Sends what the log holds for the subscriber after its cursor.
    private func pull(_ fd: Int32, _ held: inout [Int32: Held], poller: SocketPoller) {
        guard var entry = held[fd] else { return }
        let (resumption, newest) = store.liveEvents(
            after: entry.subscriber.cursor, audiences: entry.subscriber.audiences)
        var text = ""
        switch resumption {
        case .reset:
            // Events were evicted while this subscriber lagged: say so, as on a resume.
            text = "id: \(newest)\nevent: reset\ndata: {}\n\n"
            entry.subscriber.cursor = newest
            entry.subscriber.sent += 1
        case .events(let records):
            for record in records {
                entry.subscriber.cursor = record.id
                guard entry.subscriber.agentFilter?.admits(record) ?? true else { continue }
                text += "id: \(record.id)\nevent: \(record.type)\ndata: \(record.data.jsonText)\n\n"
                entry.subscriber.sent += 1
                if let limit = settings.dropEvery, entry.subscriber.sent >= limit { break }
            }
            if records.isEmpty { entry.subscriber.cursor = max(entry.subscriber.cursor, newest) }
        }
        if let limit = settings.dropEvery, entry.subscriber.sent >= limit { entry.closing = .reset }
        held[fd] = entry
        guard !text.isEmpty || entry.closing != nil else { return }
        enqueue(fd, Array(text.utf8), &held, poller: poller)
    }

    /// Queues `body` as one chunk (plus the last chunk when finishing) and writes what it can.
    private func enqueue(_ fd: Int32, _ body: [UInt8], _ held: inout [Int32: Held], poller: SocketPoller) {
        guard var entry = held[fd] else { return }
        if !body.isEmpty {
            if entry.subscriber.chunked {
                entry.pending += Array(String(body.count, radix: 16).utf8) + [0x0D, 0x0A] + body + [0x0D, 0x0A]
            } else {
                entry.pending += body
            }
        }
        if entry.closing == .finish, entry.subscriber.chunked { entry.pending += Array("0\r\n\r\n".utf8) }
        let now = ContinuousClock.now
        entry.quietSince = now
        if entry.offset == 0 { entry.progress = now }
        held[fd] = entry
        flush(fd, &held, poller: poller)
    }

    /// Writes what the kernel takes; watches for writability while bytes wait; ends a closing stream.
    private func flush(_ fd: Int32, _ held: inout [Int32: Held], poller: SocketPoller) {
        guard var entry = held[fd] else { return }
        while entry.offset < entry.pending.count {
            guard let sent = entry.subscriber.socket.sendNow(entry.pending[entry.offset...]) else {
                return drop(fd, &held, poller: poller)
            }
            if sent == 0 { break }
            entry.offset += sent
            entry.progress = .now
        }
        if entry.offset == entry.pending.count {
            entry.pending = []
            entry.offset = 0
        }
        let waiting = !entry.pending.isEmpty
        if waiting != entry.watchingWrites {
            poller.setWritable(fd, waiting)
            entry.watchingWrites = waiting
        }
        held[fd] = entry
        if !waiting, let closing = entry.closing {
            switch closing {
            case .finish: end(fd, &held, poller: poller, reset: false)
            case .reset: drop(fd, &held, poller: poller)
            }
        }
    }

    /// Drops a subscriber at once (a reset: it resumes from its last ID).
    private func drop(_ fd: Int32, _ held: inout [Int32: Held], poller: SocketPoller) {
        end(fd, &held, poller: poller, reset: true)
    }

    private func end(_ fd: Int32, _ held: inout [Int32: Held], poller: SocketPoller, reset: Bool) {
        guard let entry = held.removeValue(forKey: fd) else { return }
        poller.remove(fd)
        if reset {
            entry.subscriber.socket.resetAndClose()
        } else {
            entry.subscriber.socket.shutdownWriting()
            entry.subscriber.socket.close()
        }
        caps.release(entry.subscriber.reservation)
        heldCount.subtract(1, ordering: .relaxed)
        store.liveEventSignal.streamsChanged(by: -1)
    }

    /// At stop: each stream gets its last chunk if the kernel takes it now, then is closed.
    private func finishAll(_ held: inout [Int32: Held], poller: SocketPoller) {
        for fd in Array(held.keys) {
            guard var entry = held[fd] else { continue }
            if entry.subscriber.chunked && entry.closing == nil {
                entry.pending += Array("0\r\n\r\n".utf8)
                _ = entry.subscriber.socket.sendNow(entry.pending[entry.offset...])
            }
            held[fd] = entry
            end(fd, &held, poller: poller, reset: false)
        }
    }
}
