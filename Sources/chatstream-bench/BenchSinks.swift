// BenchSinks: the readers the pipelines hand to `feed(_:into:)`, each doing per event exactly
// what the reader it stands for does (owned events, lent text, an assembler), so a profile
// measures the decoder's path and that reader's work, nothing more.

import ChatStream

/// Owned events: each text delta made a `StreamEvent` (its text a `String`), as a reader of
/// `[StreamEvent]` gets it; counts the events and their text bytes.
struct OwnedEventCount: StreamEventSink {
    var events = 0
    var textBytes = 0

    /// What the pipelines return: the event count plus the text bytes.
    var total: Int { events &+ textBytes }

    mutating func textDelta(id: String, delta: CheckedUTF8) {
        event(.textDelta(id: id, delta: delta.string))
    }

    mutating func event(_ event: StreamEvent) {
        events &+= 1
        if case .textDelta(_, let delta) = event { textBytes &+= delta.utf8.count }
    }
}

/// Lent text: text deltas counted in place, no `String` made; the same total as ``OwnedEventCount``.
struct LentEventCount: StreamEventSink {
    var events = 0
    var textBytes = 0

    var total: Int { events &+ textBytes }

    mutating func textDelta(id: String, delta: CheckedUTF8) {
        events &+= 1
        textBytes &+= delta.count
    }

    mutating func event(_ event: StreamEvent) { events &+= 1 }
}

/// Every event, owned, to a `MessageAssembler`, as a UI's reader applies it.
struct AssemblingEvents: StreamEventSink {
    var assembler = MessageAssembler()
    /// How many events left a tool call with an input as the message's last part (when counted).
    var toolInputReads = 0
    /// Whether to read the message's last part after every event, as a UI showing a tool input does.
    var readsToolInput = false

    mutating func textDelta(id: String, delta: CheckedUTF8) {
        event(.textDelta(id: id, delta: delta.string))
    }

    mutating func event(_ event: StreamEvent) {
        assembler.apply(event)
        if readsToolInput, case .toolCall(let call)? = assembler.message.parts.last, call.input != .null {
            toolInputReads &+= 1
        }
    }
}
