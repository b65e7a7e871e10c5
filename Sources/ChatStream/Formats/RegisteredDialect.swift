// RegisteredDialect: how the run-time decoders (AnyStreamDecoder, AnyMessageDecoder) reach the
// decoder of a format chosen at run time with the code specialised for its dialect.
//
// A `StreamDecoder<D>` held as an existential runs the unspecialised generic code, which looks
// generic metadata up for every unit. Here the decoder sits in a class box without its dialect
// in the type, and each operation is a static requirement of the dialect: the requirement's
// default implementation, reached through a built-in dialect's own witness table, is compiled
// for that dialect, so a call costs one witness-table call and a cast per chunk, then exactly
// the code `StreamDecoder<D>` or `MessageDecoder<D>` runs. Both run-time decoders use this one
// technique. A new format is a case of `StreamFormat` with its arm in `StreamFormat.dialect`
// beside it; the dialect declares its conformance with its variants (`X+Variants.swift`).

import ChatStreamFraming
import ChatStreamJSON

/// A dialect that a ``StreamFormat`` names, decodable with the format chosen at run time.
package protocol RegisteredDialect: StreamDialect {
    /// The vendor variants the dialect reads (its table in the VendorVariants article).
    static var variants: [DialectVariant] { get }

    /// A box holding a new `StreamDecoder<Self>`.
    static func makeEventDecoder(configuration: StreamDecoderConfiguration) -> DecoderBox
    /// `StreamDecoder<Self>.feed(_:into:)` on the decoder in `box`, with the reader's two ways out.
    static func feedEvents(
        _ box: DecoderBox, _ bytes: UnsafeRawBufferPointer, textDelta: TextDeltaSink, emit: EventSink) throws
    /// `StreamDecoder<Self>.finish(into:)` on the decoder in `box`, with the reader's two ways out.
    static func finishEvents(_ box: DecoderBox, textDelta: TextDeltaSink, emit: EventSink) throws -> StreamEnd

    /// A box holding a new `MessageDecoder<Self>`.
    static func makeMessageDecoder(
        configuration: StreamDecoderConfiguration, toolInputLimits: JSONConfiguration
    ) -> DecoderBox
    /// `MessageDecoder<Self>.feed(_:)` on the decoder in `box`.
    static func feed(_ box: DecoderBox, _ bytes: UnsafeRawBufferPointer) throws
    /// `MessageDecoder<Self>.message()` on the decoder in `box`.
    static func message(_ box: DecoderBox) -> AssembledMessage
    /// `MessageDecoder<Self>.finish()`, or `finish(error:)` when `error` is set, on the decoder in `box`.
    static func finishMessages(_ box: DecoderBox, error: StreamError?) -> [AssembledMessage]
}

extension RegisteredDialect {
    package static func makeEventDecoder(configuration: StreamDecoderConfiguration) -> DecoderBox {
        EventDecoderBox(StreamDecoder<Self>(configuration: configuration))
    }

    package static func feedEvents(
        _ box: DecoderBox, _ bytes: UnsafeRawBufferPointer, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        try unsafeDowncast(box, to: EventDecoderBox<Self>.self).decoder.decode(bytes, textDelta: textDelta, emit: emit)
    }

    package static func finishEvents(_ box: DecoderBox, textDelta: TextDeltaSink, emit: EventSink) throws -> StreamEnd {
        try unsafeDowncast(box, to: EventDecoderBox<Self>.self).decoder.finish(textDelta: textDelta, emit: emit)
    }

    package static func makeMessageDecoder(
        configuration: StreamDecoderConfiguration, toolInputLimits: JSONConfiguration
    ) -> DecoderBox {
        MessageDecoderBox(MessageDecoder<Self>(configuration: configuration, toolInputLimits: toolInputLimits))
    }

    package static func feed(_ box: DecoderBox, _ bytes: UnsafeRawBufferPointer) throws {
        try unsafeDowncast(box, to: MessageDecoderBox<Self>.self).decoder.feed(bytes)
    }

    package static func message(_ box: DecoderBox) -> AssembledMessage {
        unsafeDowncast(box, to: MessageDecoderBox<Self>.self).decoder.message()
    }

    package static func finishMessages(_ box: DecoderBox, error: StreamError?) -> [AssembledMessage] {
        let box = unsafeDowncast(box, to: MessageDecoderBox<Self>.self)
        if let error { return box.decoder.finish(error: error) }
        return box.decoder.finish()
    }
}

/// A decoder of some dialect, in a class so that it is mutated in place without its dialect in
/// the type. The run-time decoders copy it before mutating when it is shared (value semantics).
package class DecoderBox {
    /// How many units of unknown type the dialect skipped.
    var unknownUnitCount: Int { fatalError("abstract") }
    /// Malformed units skipped in lenient mode, in order.
    var skippedErrors: [StreamError] { fatalError("abstract") }
    /// The error that stopped a message decoder; nil while all is well (and for an event decoder).
    var failure: StreamError? { nil }
    /// A box holding a copy of the decoder.
    func copy() -> DecoderBox { fatalError("abstract") }
}

/// A `StreamDecoder<Dialect>` in a box.
final class EventDecoderBox<Dialect: StreamDialect>: DecoderBox {
    var decoder: StreamDecoder<Dialect>
    init(_ decoder: StreamDecoder<Dialect>) { self.decoder = decoder }
    override var unknownUnitCount: Int { decoder.unknownUnitCount }
    override var skippedErrors: [StreamError] { decoder.skippedErrors }
    override func copy() -> DecoderBox { EventDecoderBox(decoder) }
}

/// A `MessageDecoder<Dialect>` in a box.
final class MessageDecoderBox<Dialect: StreamDialect>: DecoderBox {
    var decoder: MessageDecoder<Dialect>
    init(_ decoder: MessageDecoder<Dialect>) { self.decoder = decoder }
    override var unknownUnitCount: Int { decoder.unknownUnitCount }
    override var skippedErrors: [StreamError] { decoder.skippedErrors }
    override var failure: StreamError? { decoder.failure }
    override func copy() -> DecoderBox { MessageDecoderBox(decoder) }
}
