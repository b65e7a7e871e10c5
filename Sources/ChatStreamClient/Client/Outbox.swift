// The outbox's coordinator: flushes run one after another (a second caller waits for the first
// through the chain of tasks, no polling), a message being sent is never picked up by a flush at
// the same time, and what a flush delivers or finds refused is told to the observers
// (ConversationState settles its pending rows with it).

import Synchronization

/// What happened to a queued message outside the send that wrote it.
enum OutboxEvent: Sendable {
    /// Delivered by a flush, with its reply.
    case delivered(OutboxFlush.Delivery)
    /// Refused by the server (403 conversation ended, 413 quota...): marked failed, never sent again.
    case refused(OutboxMessage, any Error)
}

/// Serialises the outbox's flushes and tracks the messages on their way.
actor Outbox {
    /// Set inside a flush: the requests it makes do not start another automatic flush.
    @TaskLocal static var insideFlush = false
    /// Set while a queued message is sent: a conversation the server does not know is created
    /// with the message's conversation ID (it was made by the client when the message was written).
    @TaskLocal static var createsMissingConversation = false
    /// Set while a message for a new conversation is sent for the first time: its conversation
    /// ID was made by the client just now, so the server cannot know it yet, and it is created
    /// before the message goes rather than after a 404 to the whole message (with a long message
    /// on loopback that 404 was about a fifth of a `chatstream chat`).
    @TaskLocal static var newConversation: NewConversation? = nil

    private var tail: Task<Void, Never>?
    private var inFlight: Set<String> = []
    private var automaticQueued = false
    private nonisolated let observers = Mutex<[Int: @Sendable (OutboxEvent) -> Void]>([:])
    private nonisolated let nextObserver = Atomic<Int>(0)
    /// The task that scheduled the last automatic flush (``settled()`` waits for it first).
    nonisolated let lastScheduling = Mutex<Task<Void, Never>?>(nil)

    /// Runs `body` after every flush started before it has ended.
    func serially<R: Sendable>(_ body: @escaping @Sendable () async throws -> R) async throws -> R {
        let previous = tail
        let task = Task<R, any Error> {
            await previous?.value
            return try await Outbox.$insideFlush.withValue(true) { try await body() }
        }
        tail = Task { _ = await task.result }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Starts one automatic flush unless one is already waiting to run.
    func scheduleAutomatic(_ body: @escaping @Sendable () async -> Void) {
        guard !automaticQueued else { return }
        automaticQueued = true
        let previous = tail
        let task = Task {
            await previous?.value
            self.automaticRan()
            await Outbox.$insideFlush.withValue(true) { await body() }
        }
        tail = task
    }

    private func automaticRan() { automaticQueued = false }

    /// Waits for every flush started or scheduled so far.
    func settled() async {
        await lastScheduling.withLock { $0 }?.value
        await tail?.value
    }

    /// Marks `id` as being sent; false when it already is (by a send or a flush).
    func begin(_ id: String) -> Bool { inFlight.insert(id).inserted }

    /// `id` is no longer being sent.
    func end(_ id: String) { inFlight.remove(id) }

    /// Whether `id` is being sent.
    func isInFlight(_ id: String) -> Bool { inFlight.contains(id) }

    /// Calls `observer` with every later event; the result removes it.
    nonisolated func observe(_ observer: @escaping @Sendable (OutboxEvent) -> Void) -> Int {
        let token = nextObserver.add(1, ordering: .relaxed).newValue
        observers.withLock { $0[token] = observer }
        return token
    }

    /// Stops calling the observer `token`.
    nonisolated func removeObserver(_ token: Int) {
        _ = observers.withLock { $0.removeValue(forKey: token) }
    }

    /// Tells every observer.
    nonisolated func tell(_ event: OutboxEvent) {
        for observer in observers.withLock({ Array($0.values) }) { observer(event) }
    }
}

/// The conversation ID the client made for a new conversation's first message; claimed once, by
/// the first send of that message (a tool loop's later rounds, or a flush of the queued message
/// later, find the conversation there or go through the 404 path).
final class NewConversation: Sendable {
    let id: String
    /// How creating it on the server went (it is created while its message is written to the
    /// outbox); the first send of the message throws a failure as its own.
    let creation: Result<Conversation, any Error>
    private let claimed = AcceptedFlag()
    private let recorded = AcceptedFlag()

    init(id: String, creation: Result<Conversation, any Error>) {
        self.id = id
        self.creation = creation
    }

    /// Files the created conversation in `client`'s store, once (nothing when its creation
    /// failed). Done when the server has taken the message, not as the creation's answer comes:
    /// the store is then busy writing the message to the outbox, and the message's request would
    /// wait for both writes in turn.
    func record(in client: ChatbaseClient) {
        guard case .success(let conversation) = creation, recorded.set() else { return }
        client.record(conversation)
    }

    /// True the first time it is asked about its own `id`.
    func claim(_ id: String) -> Bool {
        guard id == self.id else { return false }
        return claimed.set()
    }
}
