// swift-format-ignore-file
// (The example is kept exactly as the article shows it.)
// ChatStream.docc/WritingADialect.md's dialect, compiled with only the imports the article names
// (this file imports nothing else), and run by ReadmeDialectExampleTests: the article's lines,
// then the same dialect fed a line without `text` and a line that is not JSON.

@_spi(Dialects) import ChatStream
@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON

func writingADialectExample() throws -> (
    text: String, events: [StreamEvent], unknownUnits: Int, malformed: StreamError?
) {
    struct TextLinesDialect: StreamDialect {
        typealias Framer = NDJSONDecoder
        private(set) var unknownUnitCount = 0
        private let parser: JSONParser
        private var lines = 0

        init(configuration: StreamDecoderConfiguration) {
            parser = JSONParser(configuration: configuration.json)
        }

        mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
            let text = try parser.parse(unit.data, streamOffset: unit.streamOffset) { $0["text"]?.string }
            guard let text else {
                unknownUnitCount += 1
                return
            }
            if lines == 0 { try emit(.textStart(id: "text-0")) }
            lines += 1
            try CheckedUTF8.lending(text) { try textDelta("text-0", $0) }
        }

        mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
            if lines > 0 { try emit(.textEnd(id: "text-0")) }
            try emit(.done)
        }
    }

    var decoder = MessageDecoder<TextLinesDialect>()
    try decoder.feed(Array("{\"text\":\"one\"}\n{\"n\":1}\n{\"text\":\"two\"}\n".utf8))
    let reply = decoder.finish()[0]                   // reply.text == "onetwo"

    var checked = StreamDecoder<TextLinesDialect>()
    var events: [StreamEvent] = []
    try checked.feed(Array("{\"n\":1}\n{\"text\":\"a\"}\n".utf8), into: &events)
    var malformed: StreamError?
    do {
        try checked.feed(Array("{\"text\":}\n".utf8), into: &events)
    } catch let error as StreamError {
        malformed = error
    }
    return (reply.text, events, checked.unknownUnitCount, malformed)
}
