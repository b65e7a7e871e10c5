// What a live-event decoder remembers between events, so that one event can be read in the
// light of earlier ones: which messages were streamed in pieces (their finished message then
// says it completes the stream), and the titles of the options offered (a user's selection that
// names only the option's identifier then still has its text). Both are bounded: the oldest
// entries go first.

import ChatStream

struct LiveStreamMemory: Sendable {
    static let streamedLimit = 256
    static let optionLimit = 1024

    private var streamed: Set<String> = []
    private var streamedOrder: [String] = []
    private var optionTitles: [String: String] = [:]
    private var optionOrder: [String] = []

    /// Notes that pieces of `messageId` were streamed.
    mutating func noteStreamed(_ messageId: String) {
        guard streamed.insert(messageId).inserted else { return }
        streamedOrder.append(messageId)
        if streamedOrder.count > Self.streamedLimit { streamed.remove(streamedOrder.removeFirst()) }
    }

    /// Whether pieces of `messageId` were streamed; forgets it (its finished message came).
    mutating func takeStreamed(_ messageId: String) -> Bool {
        guard streamed.remove(messageId) != nil else { return false }
        streamedOrder.removeAll { $0 == messageId }
        return true
    }

    /// Remembers the titles of offered options that have both an identifier and a title.
    mutating func remember(_ options: [MessageOption]) {
        for option in options where !option.id.isEmpty && !option.title.isEmpty {
            if optionTitles.updateValue(option.title, forKey: option.id) == nil { optionOrder.append(option.id) }
        }
        let excess = optionOrder.count - Self.optionLimit
        if excess > 0 {
            for id in optionOrder.prefix(excess) { optionTitles.removeValue(forKey: id) }
            optionOrder.removeFirst(excess)
        }
    }

    /// The title of an option offered earlier, if one was.
    func title(ofOption id: String) -> String? { optionTitles[id] }
}
