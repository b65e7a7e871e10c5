// StoreChanges: what one write transaction changed, noted by StoreTransaction's operations as
// they run, so the transaction can record the live events of those changes before it commits.

/// The conversations and messages one transaction created or changed, in the order it first touched them.
final class StoreChanges {
    /// Conversations touched, in first-touch order.
    private(set) var conversations: [String] = []
    /// Conversations created in this transaction.
    private(set) var createdConversations: Set<String> = []
    /// Sequence numbers of the messages appended in this transaction, per conversation.
    private(set) var appendedMessages: [String: [Int]] = [:]
    private var seen: Set<String> = []
    /// The live events this transaction recorded, with their audiences (kept by ``reset()``).
    private(set) var recordedEvents: [(audience: String, record: LiveEventRecord, bytes: Int)] = []

    /// Notes that conversation `id` changed.
    func changed(_ id: String) {
        if seen.insert(id).inserted { conversations.append(id) }
    }

    /// Notes that conversation `id` was created.
    func created(_ id: String) {
        createdConversations.insert(id)
        changed(id)
    }

    /// Notes that the message with sequence number `sequence` was appended to conversation `id`.
    func appended(_ sequence: Int, to id: String) {
        appendedMessages[id, default: []].append(sequence)
        changed(id)
    }

    /// The messages as this transaction stored them, by sequence number, so their live events are
    /// made without reading them back; a later change of one in the same transaction forgets it
    /// (its event then reads the row).
    private(set) var storedMessages: [Int: StoredMessage] = [:]

    /// A message as stored: its record, whether it shows in history, its parts' JSON size and its
    /// stored preview.
    struct StoredMessage {
        var record: MessageRecord
        var visible: Bool
        var size: Int
        var preview: String
    }

    /// Notes message `record` as just stored (its parts' stored forms `parts`).
    func stored(_ record: MessageRecord, visible: Bool, parts: StoredParts) {
        storedMessages[record.sequence] = StoredMessage(
            record: record, visible: visible, size: parts.size, preview: parts.preview)
    }

    /// Forgets the stored forms noted for the messages with sequence numbers from `sequence` on
    /// (they changed since).
    func forgetStoredMessages(from sequence: Int) {
        storedMessages = storedMessages.filter { $0.key < sequence }
    }

    /// Forgets the stored form noted for message `sequence` (it changed since).
    func forgetStoredMessage(_ sequence: Int) {
        storedMessages[sequence] = nil
    }

    /// Streamed replies stored whole in this transaction while someone follows live events: their
    /// `message.created` comes between the agent's `typing` on and off, as a generated reply's does.
    private(set) var typedReplies: Set<Int> = []

    /// Notes that reply `sequence` was stored whole while streamed, to be announced with `typing`.
    func typing(around sequence: Int) {
        typedReplies.insert(sequence)
    }

    /// Bytes this transaction added to (or took from) conversations' messages and has not stored
    /// in their `stored_bytes` yet, per conversation (StoreTransaction.addStoredBytes).
    private var unsavedStoredBytes: [String: Int] = [:]

    /// Notes `bytes` more (negative: fewer) stored in conversation `id`'s messages.
    func addUnsavedStoredBytes(_ bytes: Int, to id: String) {
        guard bytes != 0 else { return }
        unsavedStoredBytes[id, default: 0] += bytes
    }

    /// The bytes noted for conversation `id` and not stored yet (0 for none); forgets them.
    func takeUnsavedStoredBytes(of id: String) -> Int {
        unsavedStoredBytes.removeValue(forKey: id) ?? 0
    }

    /// Every conversation's bytes noted and not stored yet, leaving none.
    func takeUnsavedStoredBytes() -> [(id: String, bytes: Int)] {
        defer { unsavedStoredBytes = [:] }
        return unsavedStoredBytes.compactMap { $0.value == 0 ? nil : ($0.key, $0.value) }
    }

    /// The store-wide sequence as this transaction moved it: its last number given, and whether
    /// it moved since it was read (StoreTransaction.nextSequence, .finish).
    var sequence: (last: Int, moved: Bool)?

    /// Per audience, the events the log holds and their bytes, once read in this transaction
    /// (StoreTransaction.eventTotals; nil again after a prune deletes some).
    var eventTotals: [String: (count: Int, bytes: Int)] = [:]

    /// Per audience, the newest event ID this transaction pruned (kept by ``reset()``).
    private(set) var evictions: [String: Int] = [:]

    /// Notes that `audience`'s events up to `id` were pruned.
    func evicted(_ audience: String, through id: Int) {
        evictions[audience] = max(evictions[audience] ?? 0, id)
    }

    /// Notes a live event recorded for `audience`, `bytes` the size of its JSON.
    func recorded(_ record: LiveEventRecord, bytes: Int, for audience: String) {
        recordedEvents.append((audience, record, bytes))
    }

    /// Values this write's work let go of that are left for its caller's thread to free (kept by
    /// ``reset()``): see ``keep(_:)``.
    private(set) var kept: [Any] = []

    /// Keeps `value` (something the write dropped, such as the replies a registration swept) until
    /// the write's caller has woken: the change notes go back to it after the commit
    /// (ConversationStore.commit), so the freeing runs on its thread, not on the store's committer
    /// that every write waits for.
    func keep(_ value: Any) {
        kept.append(value)
    }

    /// Forgets the changes noted (after their events were recorded).
    func reset() {
        // The messages as stored (their parts) are freed with the rest of the notes, by the caller.
        if !storedMessages.isEmpty { keep(storedMessages) }
        conversations = []
        createdConversations = []
        appendedMessages = [:]
        storedMessages = [:]
        typedReplies = []
        seen = []
    }
}
