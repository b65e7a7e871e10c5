/// The end of an async sequence of messages: every choice's final message, one per `next()`,
/// then the error that ended the stream (thrown once), then nil. So a consumer gets everything
/// that arrived before it sees the error (``AsyncAssembledMessageSequence``,
/// ``AsyncFinalMessageSequence``).
struct FinalMessageHandOver {
    private let messages: [AssembledMessage]
    private var index = 0
    private var failure: (any Error)?

    /// Hands over `messages`, then throws `failure` (when there is one).
    init(_ messages: [AssembledMessage], then failure: (any Error)?) {
        self.messages = messages
        self.failure = failure
    }

    mutating func next() throws -> AssembledMessage? {
        if index < messages.count {
            index += 1
            return messages[index - 1]
        }
        if let failure {
            self.failure = nil
            throw failure
        }
        return nil
    }
}
