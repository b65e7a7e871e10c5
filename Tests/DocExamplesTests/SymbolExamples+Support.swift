// What the symbol documentation's examples take for granted (an output for lent bytes, an app's
// list model), so their copies in SymbolExamples*.swift compile as written.

import ChatStreamClient

/// Somewhere lent bytes are written, as the examples' `output` and `socket`.
struct ByteOutput {
    func write(_ bytes: RawSpan) {}
}

/// An app's own list of conversations, as the live-event example updates it.
@MainActor final class ConversationRows {
    func upsert(_ conversation: Conversation) {}
    func refresh() async throws {}
}
