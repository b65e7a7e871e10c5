// ConversationState coming back: a reply in flight when the app was suspended or killed is in the
// client's store (ReplyInFlight); `resume()` (from the app's scene-phase change) and
// `loadHistory` (at the next launch) finish it through the client and show the conversation as
// the server has it, the reply once.

extension ConversationState {
    /// Picks up what a suspension interrupted: the replies of this conversation left in flight
    /// (``ChatbaseClient/completeRepliesInFlight(conversationId:)``) are finished, and when one
    /// was, the newest page of history is loaded so the reply shows whole, once. Does nothing
    /// while a send or retry runs (it resumes its own reply) or without the client's
    /// ``ChatbaseClient/store``. Call it when the app becomes active again. ChatStream's own.
    ///
    /// ```swift
    /// // From the app's scene-phase change to active:
    /// await chat.resume()
    /// ```
    public func resume() async {
        guard !isSending, client.store != nil else { return }
        let conversation = conversationId
        let completed: [ChatResponse]
        do {
            completed = try await client.completeRepliesInFlight(conversationId: conversation)
        } catch {
            self.error = error
            return
        }
        guard !isSending, let shown = conversation ?? completed.last?.conversationId,
            completed.contains(where: { $0.conversationId.lowercased() == shown.lowercased() })
        else { return }
        await loadHistory(conversationId: shown)
    }

    /// Finishes the replies of `conversationId` left in flight (a launch after the app was
    /// killed mid-reply) before its history is read; nothing while a send runs.
    func completeRepliesInFlight(of conversationId: String) async {
        guard !isSending, client.store != nil,
            (try? client.repliesInFlight())?.contains(where: {
                $0.conversationId.lowercased() == conversationId.lowercased()
            }) == true
        else { return }
        _ = try? await client.completeRepliesInFlight(conversationId: conversationId)
    }
}
