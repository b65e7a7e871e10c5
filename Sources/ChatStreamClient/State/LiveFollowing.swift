// LiveFollowing: what ConversationListState and ConversationState share to follow the live
// stream: one task that hands each event to the state on the main actor until stopped.

/// A main-actor state that follows ``ChatbaseClient/events(since:options:)``.
@MainActor
protocol LiveFollowing: AnyObject {
    var client: ChatbaseClient { get }
    var liveTask: Task<Void, Never>? { get set }
    var isLive: Bool { get set }
    var error: (any Error)? { get set }
    func handleLive(_ event: LiveEvent) async
}

extension LiveFollowing {
    /// Starts the task (once): each event goes to ``handleLive(_:)``; a failure that will not heal
    /// becomes ``error``. The task holds the state weakly, so a state let go ends it at the next event.
    func followLive(options: LiveEventOptions) {
        guard liveTask == nil else { return }
        isLive = true
        let sequence = client.events(options: options)
        liveTask = Task { [weak self] in
            do {
                for try await event in sequence {
                    guard let self, !Task.isCancelled else { return }
                    await self.handleLive(event)
                }
            } catch {
                self?.error = error
            }
            self?.isLive = false
            self?.liveTask = nil
        }
    }

    /// Cancels the task.
    func unfollowLive() {
        liveTask?.cancel()
        liveTask = nil
        isLive = false
    }
}
