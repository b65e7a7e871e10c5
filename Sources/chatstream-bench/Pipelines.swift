// Pipelines: ChatStream's own paths, each fed the stream in pieces of a given size.

import ChatStream
@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON

enum Pipelines {
    /// bytes -> SSE events (the visitor API); returns the events seen.
    static func serverSentEvents(_ bytes: [UInt8], chunk: Int?) -> Int {
        var decoder = ServerSentEventDecoder()
        var events = 0
        var dataBytes = 0
        bytes.withUnsafeBytes { raw in
            forEachChunk(raw, chunk) { piece in
                try! decoder.feed(piece) { event in
                    events &+= 1
                    dataBytes &+= event.data.count
                }
            }
        }
        _ = try! decoder.finish()
        blackHole(dataBytes)
        return events
    }

    /// bytes -> typed events (StreamDecoder<UIMessageStreamDialect>); returns the text-delta
    /// bytes seen plus the event count, so the work is checked and kept.
    static func typedEvents(_ bytes: [UInt8], chunk: Int?) -> Int {
        typedEvents(bytes, chunk: chunk, dialect: UIMessageStreamDialect.self)
    }

    /// bytes -> typed events with lent text (home protocol); the same count as ``typedEvents(_:chunk:)``.
    static func typedViews(_ bytes: [UInt8], chunk: Int?) -> Int {
        typedViews(bytes, chunk: chunk, dialect: UIMessageStreamDialect.self)
    }

    /// bytes -> one assembled message (StreamDecoder + MessageAssembler.apply per event);
    /// returns the assembled text's length in bytes.
    static func assembled(_ bytes: [UInt8], chunk: Int?) -> Int {
        assembled(bytes, chunk: chunk, dialect: UIMessageStreamDialect.self)
    }

    /// The assembled text itself (for the correctness check before timing).
    static func assembledText(_ bytes: [UInt8], chunk: Int?) -> String {
        assembledText(bytes, chunk: chunk, dialect: UIMessageStreamDialect.self)
    }

    /// bytes -> typed events (StreamDecoder<Dialect>); returns the text-delta bytes seen plus
    /// the event count, so the work is checked and kept.
    static func typedEvents<Dialect: StreamDialect>(_ bytes: [UInt8], chunk: Int?, dialect: Dialect.Type) -> Int {
        var decoder = StreamDecoder<Dialect>()
        var sink = OwnedEventCount()
        bytes.withUnsafeBytes { raw in
            forEachChunk(raw, chunk) { piece in try! decoder.feed(piece, into: &sink) }
        }
        try! decoder.finish(into: &sink)
        return sink.total
    }

    /// bytes -> typed events with lent text (`StreamDecoder<Dialect>.feed(_:into:)` with a sink); returns
    /// the text-delta bytes seen plus the event count, as ``typedEvents(_:chunk:dialect:)`` does.
    static func typedViews<Dialect: StreamDialect>(_ bytes: [UInt8], chunk: Int?, dialect: Dialect.Type) -> Int {
        var decoder = StreamDecoder<Dialect>()
        var sink = LentEventCount()
        bytes.withUnsafeBytes { raw in
            forEachChunk(raw, chunk) { piece in try! decoder.feed(piece, into: &sink) }
        }
        try! decoder.finish(into: &sink)
        return sink.total
    }

    /// bytes -> one assembled message (StreamDecoder<Dialect> + MessageAssembler.apply per
    /// event); returns the assembled text's length in bytes.
    static func assembled<Dialect: StreamDialect>(_ bytes: [UInt8], chunk: Int?, dialect: Dialect.Type) -> Int {
        var decoder = StreamDecoder<Dialect>()
        var sink = AssemblingEvents()
        bytes.withUnsafeBytes { raw in
            forEachChunk(raw, chunk) { piece in try! decoder.feed(piece, into: &sink) }
        }
        try! decoder.finish(into: &sink)
        return sink.assembler.finish()[0].text.utf8.count
    }

    /// bytes -> one assembled message through `MessageDecoder<Dialect>` (no event per text
    /// delta); returns the assembled text's length in bytes.
    static func messageDecoder<Dialect: StreamDialect>(_ bytes: [UInt8], chunk: Int?, dialect: Dialect.Type) -> Int {
        messageDecoderText(bytes, chunk: chunk, dialect: dialect).utf8.count
    }

    /// The text `MessageDecoder<Dialect>` assembles (for the correctness check before timing).
    static func messageDecoderText<Dialect: StreamDialect>(
        _ bytes: [UInt8], chunk: Int?, dialect: Dialect.Type
    ) -> String {
        var decoder = MessageDecoder<Dialect>()
        bytes.withUnsafeBytes { raw in
            forEachChunk(raw, chunk) { piece in try! decoder.feed(piece) }
        }
        let messages = decoder.finish()
        precondition(decoder.failure == nil && messages.count == 1, "\(Dialect.self): MessageDecoder failed")
        return messages[0].text
    }

    /// bytes -> one assembled message through `AnyMessageDecoder` (`format` nil: detected from
    /// the first bytes); returns the assembled text's length in bytes.
    static func anyMessageDecoder(_ bytes: [UInt8], chunk: Int?, format: StreamFormat?) -> Int {
        anyMessageDecoderText(bytes, chunk: chunk, format: format).text.utf8.count
    }

    /// The text `AnyMessageDecoder` assembles and the format it decoded (for the check before timing).
    static func anyMessageDecoderText(
        _ bytes: [UInt8], chunk: Int?, format: StreamFormat?
    ) -> (text: String, format: StreamFormat?) {
        var decoder = AnyMessageDecoder(format: format)
        bytes.withUnsafeBytes { raw in
            forEachChunk(raw, chunk) { piece in try! decoder.feed(piece) }
        }
        let messages = decoder.finish()
        precondition(decoder.failure == nil && messages.count == 1, "AnyMessageDecoder failed")
        return (messages[0].text, decoder.format)
    }

    /// The assembled text itself, decoded with `Dialect` (for the correctness check before timing).
    static func assembledText<Dialect: StreamDialect>(_ bytes: [UInt8], chunk: Int?, dialect: Dialect.Type) -> String {
        var decoder = StreamDecoder<Dialect>()
        var sink = AssemblingEvents()
        bytes.withUnsafeBytes { raw in
            forEachChunk(raw, chunk) { piece in try! decoder.feed(piece, into: &sink) }
        }
        try! decoder.finish(into: &sink)
        let messages = sink.assembler.finish()
        precondition(messages.count == 1, "\(Dialect.self): \(messages.count) messages assembled, expected 1")
        return messages[0].text
    }

    /// A streamed tool input: every event goes through the assembler, and the partial tool
    /// input is read from the assembler's message after every event, as a UI would. Returns
    /// the number of reads that saw an input.
    static func toolInput(_ bytes: [UInt8]) -> Int { toolInput(bytes, dialect: UIMessageStreamDialect.self) }

    /// ``toolInput(_:)`` in `dialect`'s format.
    static func toolInput<Dialect: StreamDialect>(_ bytes: [UInt8], dialect: Dialect.Type) -> Int {
        var decoder = StreamDecoder<Dialect>()
        var sink = AssemblingEvents(readsToolInput: true)
        bytes.withUnsafeBytes { raw in
            forEachChunk(raw, 4096) { piece in try! decoder.feed(piece, into: &sink) }
        }
        let reads = sink.toolInputReads
        sink.readsToolInput = false
        try! decoder.finish(into: &sink)
        return reads
    }

    /// The tool input as the assembler holds it at the end (for the correctness check).
    static func toolInputValue(_ bytes: [UInt8]) -> JSONTree? {
        toolInputValue(bytes, dialect: UIMessageStreamDialect.self)
    }

    /// ``toolInputValue(_:)`` in `dialect`'s format.
    static func toolInputValue<Dialect: StreamDialect>(_ bytes: [UInt8], dialect: Dialect.Type) -> JSONTree? {
        var decoder = StreamDecoder<Dialect>()
        var sink = AssemblingEvents()
        try! decoder.feed(bytes, into: &sink)
        try! decoder.finish(into: &sink)
        return sink.assembler.finish()[0].toolCalls.first?.input
    }

    /// A history page parsed into a JSONTree tree; returns the number of messages.
    static func historyPage(_ parser: JSONParser, _ bytes: [UInt8]) -> Int {
        let value = try! parser.parseValue(bytes)
        return value["data"]?.arrayValue?.count ?? 0
    }
}
