// Driving a dialect directly in tests: its units' events owned through a closure, or its text
// deltas recorded as `id|text` apart from the other events.

import ChatStreamFraming

@testable import ChatStream

extension StreamDialect {
    /// Decodes one unit, every event owned through `emit`.
    mutating func decode(_ unit: FramedUnit, emit: (StreamEvent) throws -> Void) throws {
        try decode(unit, textDelta: { try emit(.textDelta(id: $0, delta: $1.string)) }, emit: emit)
    }

    /// Ends the stream, every event owned through `emit`.
    mutating func finish(emit: (StreamEvent) throws -> Void) throws {
        try finish(textDelta: { try emit(.textDelta(id: $0, delta: $1.string)) }, emit: emit)
    }

    /// Decodes one unit into `sink`.
    mutating func decode(_ unit: FramedUnit, into sink: inout some StreamEventSink) throws {
        try decode(unit, textDelta: { try sink.textDelta(id: $0, delta: $1) }, emit: { try sink.event($0) })
    }
}

/// Records what a dialect hands its sink: each text delta as `id|text`, and the other events.
struct RecordingSink: StreamEventSink {
    var deltas: [String] = []
    var events: [StreamEvent] = []
    /// Every event in order, each text delta made a ``StreamEvent/textDelta(id:delta:)``.
    var all: [StreamEvent] = []

    mutating func textDelta(id: String, delta: CheckedUTF8) {
        deltas.append(id + "|" + delta.string)
        all.append(.textDelta(id: id, delta: delta.string))
    }

    mutating func event(_ event: StreamEvent) {
        events.append(event)
        all.append(event)
    }
}
