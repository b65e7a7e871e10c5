// ReplyRun: one streamed reply's events, held in memory while it is generated and for a while
// after, so any number of readers (the chat request that started it, a resend joining it, resumes
// after a dropped connection) each write the same events with the same IDs (PROTOCOLS.md section 8).
//
// The generator appends events; readers pull the events after their position and are woken when
// more arrive (a reader on a connection thread sleeps on a semaphore of its own; the live stream
// writer registers a wake-up of its poll loop), so a reader that went away costs nothing and
// generation never waits for anyone. The reply ends exactly once:
// `claimEnd` lets one party (the generator finishing, a stop, a server stop) win the right to
// store the end, after which appends are refused; the winner then appends the closing events and
// marks the run ended.

import ChatStream
import Dispatch
import Synchronization

/// A streamed reply's events and state, shared by its generator and its readers.
final class ReplyRun: Sendable {
    /// Where a reply stands.
    enum Phase: Sendable, Equatable {
        /// Events are being appended.
        case generating
        /// Someone claimed the end and is storing it; no more generated events.
        case ending(ReplyState?)
        /// Ended: every event it will have is held (nil: finished normally).
        case ended(ReplyState?)
    }

    private struct State {
        var events: [[UInt8]] = []
        var bytes = 0
        var phase = Phase.generating
        /// The reply's parts as far as generated (text so far, tool calls), for a stop or a restart.
        var parts: [JSONTree] = []
        var endedAt: ContinuousClock.Instant?
        var waiters: [Int: @Sendable () -> Void] = [:]
        var nextWaiter = 0
    }

    let metadata: ReplyMetadata
    /// The reply's row in the store.
    let sequence: Int
    /// The owner key of its conversation when it started (for the per-identity limit).
    let ownerKey: String
    /// Whether events carry `id:` lines (section 8 on).
    let numbered: Bool
    /// The bytes its events will hold once generated whole (reserved against
    /// ``ChatAPIServer/Replies/generatingBytes`` while it generates; 0 when not counted).
    let plannedBytes: Int
    /// Whether its chat already stored the reply finished (no pacing to keep): its events are
    /// only encoded into the run, with no store write, and it cannot be stopped.
    let storedWhole: Bool
    private let state = Mutex(State())

    init(
        metadata: ReplyMetadata, sequence: Int, ownerKey: String, numbered: Bool, plannedBytes: Int = 0,
        storedWhole: Bool = false
    ) {
        self.metadata = metadata
        self.sequence = sequence
        self.ownerKey = ownerKey
        self.numbered = numbered
        self.plannedBytes = plannedBytes
        self.storedWhole = storedWhole
    }

    var messageId: String { metadata.messageId }

    /// The SSE bytes of event number `number` (from 1) carrying the bytes `data`.
    private func encode(data: some Collection<UInt8>, number: Int) -> [UInt8] {
        var event: [UInt8] = []
        event.reserveCapacity(data.count + 20)
        if numbered {
            event.append(contentsOf: "id: ".utf8)
            event.append(contentsOf: String(number).utf8)
            event.append(UInt8(ascii: "\n"))
        }
        event.append(contentsOf: "data: ".utf8)
        event.append(contentsOf: data)
        event.append(contentsOf: "\n\n".utf8)
        return event
    }

    /// Appends a generated event and the parts generated so far; false once the end was claimed
    /// (the generator then stops).
    func append(_ data: String, parts: [JSONTree]) -> Bool {
        let appended = state.withLock { state -> Bool in
            guard state.phase == .generating else { return false }
            let event = encode(data: data.utf8, number: state.events.count + 1)
            state.events.append(event)
            state.bytes += event.count
            state.parts = parts
            return true
        }
        if appended { wakeReaders() }
        return appended
    }

    /// ``append(_:parts:)`` for an event whose data is already bytes (a reply stored whole:
    /// no parts are kept for it).
    func append(data: [UInt8]) -> Bool {
        let appended = state.withLock { state -> Bool in
            guard state.phase == .generating else { return false }
            let event = encode(data: data, number: state.events.count + 1)
            state.events.append(event)
            state.bytes += event.count
            return true
        }
        if appended { wakeReaders() }
        return appended
    }

    /// Claims the right to end the reply as `outcome`; nil when it already ended or someone else
    /// is ending it. The winner gets the parts and event count so far, stores them, then calls
    /// ``end(appending:)``.
    func claimEnd(as outcome: ReplyState?) -> (parts: [JSONTree], events: Int)? {
        state.withLock { state in
            guard state.phase == .generating else { return nil }
            state.phase = .ending(outcome)
            return (state.parts, state.events.count)
        }
    }

    /// Appends the closing events (`data` values) and marks the reply ended (after ``claimEnd(as:)``).
    func end(appending closing: [String]) {
        end(appendingData: closing.map { Array($0.utf8) })
    }

    /// ``end(appending:)`` with the closing events' data as bytes.
    func end(appendingData closing: [[UInt8]]) {
        state.withLock { state in
            guard case .ending(let outcome) = state.phase else { return }
            for data in closing {
                let event = encode(data: data, number: state.events.count + 1)
                state.events.append(event)
                state.bytes += event.count
            }
            state.phase = .ended(outcome)
            state.endedAt = .now
        }
        wakeReaders()
    }

    /// The events after number `after`, the total held, and the phase.
    func events(after: Int) -> (events: ArraySlice<[UInt8]>, count: Int, phase: Phase) {
        state.withLock { state in
            let start = min(max(0, after), state.events.count)
            return (state.events[start...], state.events.count, state.phase)
        }
    }

    /// The phase now.
    var phase: Phase { state.withLock { $0.phase } }

    /// The bytes of the events held (the figure the retention budget counts).
    var heldBytes: Int { state.withLock { $0.bytes } }

    /// When it ended; nil while it has not.
    var endedAt: ContinuousClock.Instant? { state.withLock { $0.endedAt } }

    /// Registers a reader; it is signalled after every change.
    func addReader() -> (Int, DispatchSemaphore) {
        let semaphore = DispatchSemaphore(value: 0)
        return (watch { semaphore.signal() }, semaphore)
    }

    /// Registers `wake`, called (on the appending thread, outside the run's lock) after every
    /// change; returns the ticket that ``removeReader(_:)`` takes.
    func watch(_ wake: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            let ticket = state.nextWaiter
            state.nextWaiter += 1
            state.waiters[ticket] = wake
            return ticket
        }
    }

    /// Forgets a reader.
    func removeReader(_ ticket: Int) {
        _ = state.withLock { $0.waiters.removeValue(forKey: ticket) }
    }

    /// Waits until the reply ends, at most `timeout`; true when it has.
    func waitForEnd(timeout: Duration) -> Bool {
        let (ticket, semaphore) = addReader()
        defer { removeReader(ticket) }
        let deadline = ContinuousClock.now + timeout
        while true {
            if case .ended = phase { return true }
            let left = deadline - .now
            guard left > .zero else { return false }
            _ = semaphore.wait(timeout: .now() + .milliseconds(Int(min(left, .milliseconds(250)).pollMilliseconds)))
        }
    }

    private func wakeReaders() {
        for wake in state.withLock({ Array($0.waiters.values) }) { wake() }
    }
}
