// A dialect wrapper for bit 7: `Inner` as it is, except that a `.textDelta` it hands to `emit`
// (instead of to `textDelta`) fails the run. The sink form lends even such a delta, so the
// check is made here, where the dialect hands it over.

import ChatStream
import ChatStreamFraming
import FuzzSupport

struct OwnedTextCheck<Inner: StreamDialect>: StreamDialect {
    typealias Framer = Inner.Framer
    var inner: Inner

    init(configuration: StreamDecoderConfiguration) {
        inner = Inner(configuration: configuration)
    }

    var unknownUnitCount: Int { inner.unknownUnitCount }
    static var formatName: String { Inner.formatName }

    mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        try inner.decode(unit, textDelta: textDelta, emit: { try Self.checked($0, emit) })
    }

    mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        try inner.finish(textDelta: textDelta, emit: { try Self.checked($0, emit) })
    }

    private static func checked(_ event: StreamEvent, _ emit: EventSink) throws {
        if case .textDelta = event { check(false, "\(Inner.self): a text delta came owned") }
        try emit(event)
    }
}
