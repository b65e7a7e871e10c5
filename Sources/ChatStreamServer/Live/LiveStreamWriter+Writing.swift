// LiveStreamWriter+Writing: how the writer thread writes one stream (LiveStreamWriter.swift has
// the thread, its loop and its timers): pull what the stream has after its position (a
// subscriber's events from the store's tail, or its backlog read off the thread; a reply
// reader's from its run), render it as SSE (chunked when the connection is), queue it and flush
// what the kernel takes now, and end the stream (a clean last chunk, or a reset).

import ChatStream
import Dispatch
import Foundation
import Synchronization

extension LiveStreamWriter {
    /// Sends what the stream has after its position: a subscriber's events from the log, a reply
    /// reader's from its run (and the run's end).
    func pull(_ fd: Int32, _ held: inout [Int32: Held], poller: SocketPoller) {
        guard var entry = held[fd] else { return }
        var pieces: [[UInt8]] = []
        switch entry.stream {
        case .live(var subscriber):
            guard
                let answer = store.liveEventsInMemory(after: subscriber.cursor, audiences: subscriber.audiences)
            else {
                // Behind the in-memory tail: read on the backlog reader, written when ready.
                entry.awaitingBacklog = true
                held[fd] = entry
                readBacklog(fd, serial: entry.serial, after: subscriber.cursor, audiences: subscriber.audiences)
                return
            }
            let text = render(answer, to: &subscriber, closing: &entry.closing)
            if !text.isEmpty { pieces = [Array(text.utf8)] }
            entry.stream = .live(subscriber)
        case .reply(var reader):
            // One chunk per event, as a connection thread writes them (the bytes do not depend on timing).
            let (events, count, phase) = reader.run.events(after: reader.position)
            pieces = Array(events)
            reader.position = count
            switch phase {
            case .ended(.interrupted): entry.closing = .reset
            case .ended: entry.closing = .finish
            case .generating, .ending: break
            }
            entry.stream = .reply(reader)
        }
        held[fd] = entry
        guard !pieces.isEmpty || entry.closing != nil else { return }
        enqueue(fd, pieces, &held, poller: poller)
    }

    /// Reads a lagging subscriber's events after `cursor` from the database on the backlog reader,
    /// then hands them to the writer thread. A read that fails is tried again a moment later (the
    /// subscriber waits, as for a slow read; its write timeout does not run while nothing is queued).
    func readBacklog(_ fd: Int32, serial: Int, after cursor: Int, audiences: [String], delayMilliseconds: Int = 0) {
        backlogReader.asyncAfter(deadline: .now() + .milliseconds(delayMilliseconds)) { [self] in
            beforeBacklogRead.withLock { $0 }?()
            guard let answer = try? store.liveEventsFromDatabase(after: cursor, audiences: audiences) else {
                guard inbox.withLock({ $0.running }) else { return }
                return readBacklog(fd, serial: serial, after: cursor, audiences: audiences, delayMilliseconds: 100)
            }
            let running = inbox.withLock { inbox in
                guard inbox.running else { return false }
                inbox.backlogs.append(Backlog(fd: fd, serial: serial, answer: answer))
                return true
            }
            if running { wake() }
        }
    }

    /// Writes a backlog read for a subscriber still held (and still waiting for it).
    func deliver(_ backlog: Backlog, _ held: inout [Int32: Held], poller: SocketPoller) {
        guard var entry = held[backlog.fd], entry.serial == backlog.serial, entry.awaitingBacklog,
            case .live(var subscriber) = entry.stream
        else { return }
        entry.awaitingBacklog = false
        let text = render(backlog.answer, to: &subscriber, closing: &entry.closing)
        entry.stream = .live(subscriber)
        held[backlog.fd] = entry
        if !text.isEmpty || entry.closing != nil {
            enqueue(backlog.fd, text.isEmpty ? [] : [Array(text.utf8)], &held, poller: poller)
        }
        // What was committed while the read ran (commits skip a subscriber waiting for its backlog).
        if held[backlog.fd]?.isIdle == true { pull(backlog.fd, &held, poller: poller) }
    }

    /// The events of `answer` a subscriber gets, as SSE text (its cursor moved past them).
    func render(
        _ answer: (LiveEventResumption, lastId: Int), to subscriber: inout Subscriber, closing: inout Held.Closing?
    ) -> String {
        let (resumption, newest) = answer
        var text = ""
        switch resumption {
        case .reset:
            // Events were evicted while this subscriber lagged: say so, as on a resume.
            text = "id: \(newest)\nevent: reset\ndata: {}\n\n"
            subscriber.cursor = newest
            subscriber.sent += 1
        case .events(let records):
            for record in records {
                subscriber.cursor = record.id
                guard subscriber.agentFilter?.admits(record) ?? true else { continue }
                text += "id: \(record.id)\nevent: \(record.type)\ndata: \(record.data.jsonText)\n\n"
                subscriber.sent += 1
                if let limit = settings.dropEvery, subscriber.sent >= limit { break }
            }
            if records.isEmpty { subscriber.cursor = max(subscriber.cursor, newest) }
        }
        if let limit = settings.dropEvery, subscriber.sent >= limit { closing = .reset }
        return text
    }

    /// Queues each of `pieces` as one chunk (plus the last chunk when finishing) and writes what it can.
    func enqueue(_ fd: Int32, _ pieces: [[UInt8]], _ held: inout [Int32: Held], poller: SocketPoller) {
        guard var entry = held[fd] else { return }
        for body in pieces where !body.isEmpty {
            if entry.stream.chunked {
                entry.pending += Array(String(body.count, radix: 16).utf8) + [0x0D, 0x0A] + body + [0x0D, 0x0A]
            } else {
                entry.pending += body
            }
        }
        if entry.closing == .finish, entry.stream.chunked { entry.pending += Array("0\r\n\r\n".utf8) }
        let now = ContinuousClock.now
        entry.quietSince = now
        if entry.offset == 0 { entry.progress = now }
        held[fd] = entry
        flush(fd, &held, poller: poller)
    }

    /// Writes what the kernel takes; watches for writability while bytes wait; ends a closing stream.
    func flush(_ fd: Int32, _ held: inout [Int32: Held], poller: SocketPoller) {
        guard var entry = held[fd] else { return }
        while entry.offset < entry.pending.count {
            guard let sent = entry.stream.socket.sendNow(entry.pending[entry.offset...]) else {
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
            poller.setWritable(fd, waiting, readable: !entry.givesConnectionBack)
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

    /// Drops a stream at once (a reset: it resumes from its last ID).
    func drop(_ fd: Int32, _ held: inout [Int32: Held], poller: SocketPoller) {
        end(fd, &held, poller: poller, reset: true)
    }

    func end(_ fd: Int32, _ held: inout [Int32: Held], poller: SocketPoller, reset: Bool) {
        guard let entry = held.removeValue(forKey: fd) else { return }
        poller.remove(fd)
        var resumption: (@Sendable (Socket) -> Void)?
        if reset {
            entry.stream.socket.resetAndClose()
        } else if case .reply(let reader) = entry.stream, let resume = reader.resumption {
            resumption = resume
        } else {
            entry.stream.socket.shutdownWriting()
            entry.stream.socket.close()
        }
        caps.release(entry.stream.reservation)
        switch entry.stream {
        case .live:
            heldCount.subtract(1, ordering: .relaxed)
            store.liveEventSignal.streamsChanged(by: -1)
        case .reply(let reader):
            if let ticket = entry.watchTicket { reader.run.removeReader(ticket) }
            replyCount.subtract(1, ordering: .relaxed)
        }
        // Last: the server may serve the connection's next request at once.
        resumption?(entry.stream.socket)
    }

    /// At stop: each live stream gets its last chunk if the kernel takes it now, then is closed; a
    /// reply stream too when its run ended and the rest is taken now, else it is cut.
    func finishAll(_ held: inout [Int32: Held], poller: SocketPoller) {
        for fd in Array(held.keys) {
            guard var entry = held[fd] else { continue }
            switch entry.stream {
            case .live:
                if entry.stream.chunked && entry.closing == nil {
                    entry.pending += Array("0\r\n\r\n".utf8)
                    _ = entry.stream.socket.sendNow(entry.pending[entry.offset...])
                }
                held[fd] = entry
                end(fd, &held, poller: poller, reset: false)
            case .reply:
                if entry.isIdle { pull(fd, &held, poller: poller) }
                // Still held: the run goes on, or the kernel did not take the rest now.
                if held[fd] != nil { drop(fd, &held, poller: poller) }
            }
        }
    }
}
