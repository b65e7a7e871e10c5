// LiveFollowing: what ConversationListState and ConversationState share to follow the live
// stream: one task that hands each event and each change of the connection's state to the state
// on the main actor until stopped.
//
// No gap between `load()` and `startLive()`: whatever changed between the read of `load()` and the
// point the subscription begins (the server's `subscribed`) is fetched once, when the
// subscription first becomes live (`catchUpAfterSubscribing()`); from then on every change comes
// as an event, across reconnections (the subscription resumes from its own position).

/// A main-actor state that follows ``ChatbaseClient/events(since:options:)``.
@MainActor
protocol LiveFollowing: AnyObject {
    var client: ChatbaseClient { get }
    var liveTask: Task<Void, Never>? { get set }
    var isLive: Bool { get set }
    var liveState: LiveConnectionState { get set }
    var error: (any Error)? { get set }
    func handleLive(_ event: LiveEvent) async
    /// Fetches what may have changed between the last load and the subscription's start.
    func catchUpAfterSubscribing() async
    /// The subscription is live again after a reconnection (not the first time).
    func liveAgain() async
}

extension LiveFollowing {
    /// Nothing by default: the events resume from the subscription's own position.
    func liveAgain() async {}

    /// Starts the task (once): each event goes to ``handleLive(_:)``, each change of the
    /// connection's state to ``liveState``; the first time the subscription is live, what changed
    /// since the last load is fetched. A failure that will not heal becomes ``error``. The task
    /// holds the state weakly, so a state let go ends it at the next update.
    func followLive(options: LiveEventOptions) {
        guard liveTask == nil else { return }
        isLive = true
        liveState = .connecting
        let sequence = client.events(options: options)
        liveTask = Task { [weak self] in
            do {
                try await Self.pump(sequence) { [weak self] update, firstLive in
                    guard let self, !Task.isCancelled else { return false }
                    switch update {
                    case .event(let event):
                        await self.handleLive(event)
                    case .state(let state):
                        self.liveState = state
                        if firstLive {
                            await self.catchUpAfterSubscribing()
                        } else if state == .live {
                            await self.liveAgain()
                        }
                    }
                    return true
                }
            } catch {
                self?.error = error
            }
            guard let self, !Task.isCancelled else { return }
            self.isLive = false
            if self.liveState != .unsupported { self.liveState = .stopped }
            self.liveTask = nil
        }
    }

    /// Reads the subscription off the main actor and hands each update to `deliver` (with
    /// whether it is the first `.live`), until the sequence ends or `deliver` answers false.
    nonisolated static func pump(
        _ sequence: AsyncLiveEventSequence,
        _ deliver: @escaping @MainActor @Sendable (LiveEventSubscription.Update, _ firstLive: Bool) async -> Bool
    ) async throws {
        let subscription = sequence.makeAsyncIterator().state
        var wasLive = false
        while let update = try await subscription.nextUpdate() {
            var firstLive = false
            if case .state(.live) = update, !wasLive {
                wasLive = true
                firstLive = true
            }
            guard await deliver(update, firstLive), !Task.isCancelled else { return }
        }
    }

    /// Cancels the task.
    func unfollowLive() {
        liveTask?.cancel()
        liveTask = nil
        isLive = false
        liveState = .stopped
    }
}
