// BodyBatchState: the response body's hand-over from a transport's receiving thread to its
// consumer, shared by CurlExchange and PlainHTTPExchange (each keeps these fields in the state it
// guards with one mutex).
//
// The receiving side appends what arrives to `pending`, or gives it straight to a consumer that
// is waiting (`waiter`); the consumer takes everything pending at each step, as one batch. When
// more than the transport's `maxBufferedBytes` waits, the receiving side pauses (`paused`) until
// the consumer takes it, and the take tells it to go on. A batch's buffer starts at the size of
// the last one taken, so a growing batch is not copied as it fills.
//
// Example: three reads of 100 bytes arrive while the consumer is busy; its next `nextBatch()`
// returns the 300 bytes at once; a read arriving while it waits is handed over as it is.

import Synchronization

/// The fields of an exchange's shared state that carry its response body to the consumer.
protocol BodyBatchState {
    /// Body bytes received and not yet taken by the consumer.
    var pending: [UInt8] { get set }
    /// The consumer, when it found `pending` empty.
    var waiter: CheckedContinuation<[UInt8]?, any Error>? { get set }
    /// Receiving is paused until the consumer takes what is pending.
    var paused: Bool { get set }
    /// The capacity a new batch starts with: the size of the last one taken (at least 16 KiB).
    var batchCapacity: Int { get set }
    /// No byte will be added to `pending`; `failure` says why (nil: the body is complete).
    var ended: Bool { get set }
    var failure: TransportError? { get set }
    /// `send`'s continuation, until the response head is handed over.
    var head: CheckedContinuation<HTTPResponse, any Error>? { get set }
    /// Whether the response head was handed over (a later failure is then the body's).
    var headDelivered: Bool { get set }
    /// When bytes last moved (the idle timeout counts from it).
    var lastActivity: ContinuousClock.Instant { get set }
}

/// What the consumer's step finds.
enum BodyBatchStep {
    /// A batch; `resume`: receiving was paused and is to go on.
    case bytes([UInt8], resume: Bool)
    case end
    case failed(TransportError)
    /// Nothing yet.
    case wait
}

extension BodyBatchState {
    /// Takes `send`'s continuation to hand the response head over (marking it delivered and the
    /// exchange active now); nil when the exchange ended or the head went already.
    mutating func takeHead() -> CheckedContinuation<HTTPResponse, any Error>? {
        guard !ended, let continuation = head else { return nil }
        head = nil
        headDelivered = true
        lastActivity = .now
        return continuation
    }

    /// Takes everything pending (resuming a paused receiver); `.wait` when there is nothing yet.
    mutating func takeBatch(maxBufferedBytes: Int) -> BodyBatchStep {
        if !pending.isEmpty {
            let batch = pending
            pending = []
            batchCapacity = min(max(16 << 10, batch.count), maxBufferedBytes + (64 << 10))
            guard paused else { return .bytes(batch, resume: false) }
            paused = false
            lastActivity = .now
            return .bytes(batch, resume: true)
        }
        guard ended else { return .wait }
        if let failure { return .failed(failure) }
        return .end
    }

    /// Ends the exchange with `error` (nil: the body is complete): returns the continuations to
    /// resume outside the lock (`send`'s, when no head was handed over; a waiting consumer's), or
    /// nil when it had ended already. What was buffered stays for the consumer, unless the
    /// request was cancelled (there is no consumer left for it).
    mutating func end(
        with error: TransportError?
    ) -> (head: CheckedContinuation<HTTPResponse, any Error>?, body: CheckedContinuation<[UInt8]?, any Error>?)? {
        guard !ended else { return nil }
        ended = true
        failure = error
        paused = false
        if error?.kind == .cancelled { pending = [] }
        defer {
            head = nil
            waiter = nil
        }
        return (head, waiter)
    }

    /// Receives `bytes` (not after the end): keeps them, pausing once `pauseAt` bytes wait (nil:
    /// the caller pauses on its own), or returns the waiting consumer to be given them outside the lock.
    mutating func receive(
        _ bytes: UnsafeBufferPointer<UInt8>, pauseAt limit: Int?
    ) -> CheckedContinuation<[UInt8]?, any Error>? {
        lastActivity = .now
        guard let consumer = waiter else {
            if pending.isEmpty { pending.reserveCapacity(batchCapacity) }
            pending.append(contentsOf: bytes)
            if let limit, pending.count >= limit { paused = true }
            return nil
        }
        waiter = nil
        return consumer
    }
}

/// The consumer's side of ``BodyBatchState`` (an exchange's ``HTTPBodyBatchSource/nextBatch()``).
enum BodyBatches {
    /// The next batch from the state `shared` guards: taken at once when there is one, else
    /// waited for (the waiter installed in the same hold of the lock that found none);
    /// `resumeReceiving` tells a paused receiver to go on; `cancelled` fails the exchange when the
    /// consuming task is cancelled.
    static func next<State: BodyBatchState>(
        from shared: borrowing Mutex<State>, maxBufferedBytes limit: Int,
        resumeReceiving: () -> Void, cancelled: @Sendable () -> Void
    ) async throws -> [UInt8]? {
        switch shared.withLock({ $0.takeBatch(maxBufferedBytes: limit) }) {
        case .bytes(let batch, let resume):
            if resume { resumeReceiving() }
            return batch
        case .end: return nil
        case .failed(let error): throw error
        case .wait: break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let step = shared.withLock { state in
                    let step = state.takeBatch(maxBufferedBytes: limit)
                    if case .wait = step { state.waiter = continuation }
                    return step
                }
                switch step {
                case .wait: return
                case .bytes(let batch, let resume):
                    if resume { resumeReceiving() }
                    continuation.resume(returning: batch)
                case .end: continuation.resume(returning: nil)
                case .failed(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            cancelled()
        }
    }
}
