// swift-format-ignore-file
// (The examples are kept exactly as the doc comments show them.)
// The Swift examples of the `///` comments in ChatStreamFraming, compiled (see
// DocBlocksAreCompiledTests and README.md here). Each function holds one example verbatim, under
// a comment naming where it is; its parameters supply what the example uses. The functions are
// never called: compiling them is the test.

@_spi(Dialects) import ChatStream
@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON

// Sources/ChatStreamFraming/AsyncDataStreamV4PartSequence.swift:11
func symbolAsyncDataStreamV4PartSequence(chunks: AsyncStream<[UInt8]>) async throws {
    for try await part in chunks.dataStreamV4Parts() where part.code == "0" {
        print(String(decoding: part.payload, as: UTF8.self))
    }
}

// Sources/ChatStreamFraming/AsyncDecodedSequence.swift:105
func symbolDecodedUsing(chunks: AsyncStream<[UInt8]>) async throws {
    for try await line in chunks.decoded(using: NDJSONDecoder(configuration: .default)) {
        print(line.byteOffset, line.bytes.count)
    }
}

// Sources/ChatStreamFraming/AsyncDecodedSequence.swift:125
func symbolAsyncFramedSequence(chunks: AsyncStream<[UInt8]>) async throws {
    for try await value in chunks.framed(by: JSONSequenceFramer.self) {
        print(value.byteOffset, value.bytes.count)
    }
}

// Sources/ChatStreamFraming/IncrementalDecoder.swift:11
func symbolIncrementalDecoder() throws {
    var framer = NDJSONDecoder(configuration: .default)
    var lines: [NDJSONLine] = []
    try framer.feed(Array("{\"a\":1}\n{\"b\"".utf8), into: &lines)   // one line; `{"b"` waits
    let end = try framer.finish(into: &lines)                        // `{"b"`, at byte 8
    print(lines.count, end.totalBytes)                               // 2 12
}

// Sources/ChatStream/JSONFraming/AsyncJSONArrayElementSequence.swift:14
func symbolAsyncJSONArrayElementSequence(chunks: AsyncStream<[UInt8]>) async throws {
    for try await element in chunks.jsonArrayElements() {
        print(element.byteOffset, String(decoding: element.bytes, as: UTF8.self))
    }
}

// Sources/ChatStreamFraming/AsyncNDJSONLineSequence.swift:11
func symbolAsyncNDJSONLineSequence(chunks: AsyncStream<[UInt8]>, parser: JSONParser) async throws {
    for try await line in chunks.ndjsonLines() {
        try parser.parse(line.bytes) { print($0["type"]?.string ?? "") }
    }
}

// Sources/ChatStreamFraming/AsyncServerSentEventSequence.swift:14
func symbolAsyncServerSentEventSequence(chunks: AsyncStream<[UInt8]>) async throws {
    for try await event in chunks.serverSentEvents() {
        print(event.type, event.data)
    }
}

// Sources/ChatStreamFraming/DataStreamV4Decoder.swift:8
func symbolDataStreamV4Decoder() throws {
    var decoder = DataStreamV4Decoder()
    let parts = try decoder.feed(Array("0:\"Hi\"\n".utf8))  // [code "0", payload "\"Hi\""]
    _ = parts
}


// Sources/ChatStreamFraming/DataStreamV4Part.swift:3
func symbolDataStreamV4Part() {
    // 0:"Hello"\n  ->  DataStreamV4Part(code: "0", payload: Array("\"Hello\"".utf8), byteOffset: 0)
}

// Sources/ChatStreamFraming/FramedUnit.swift:5
func symbolFramedUnit(framer: inout ServerSentEventDecoder, bytes: UnsafeRawBufferPointer, parser: JSONParser) throws {
    try framer.feedUnits(bytes) { unit in
        if unit.dataEquals("[DONE]") { return }
        try parser.parse(unit.data, streamOffset: unit.streamOffset) { root in print(root["type"]?.string ?? "") }
    }
}

// Sources/ChatStreamFraming/FramingConfiguration.swift:6
func symbolFramingConfiguration() {
    var decoder = ServerSentEventDecoder(configuration: .init(maxLineBytes: 1 << 20, maxEventBytes: 1 << 20))
    var framer = JSONArrayElementFramer(configuration: .init(maxValueBytes: 1 << 20, maxDepth: 64))
    _ = (decoder, framer)
}

// Sources/ChatStreamFraming/FramingError.swift:8
func symbolFramingError(decoder: inout ServerSentEventDecoder, bytes: [UInt8], events: inout [ServerSentEvent]) throws {
    do {
        try decoder.feed(bytes, into: &events)
    } catch let error as FramingError where error.kind == .lineTooLong {
        print("line too long at byte \(error.byteOffset)")
    }
}

// Sources/ChatStream/JSONFraming/JSONArrayElementFramer.swift:13
func symbolJSONArrayElementFramer(chunks: [[UInt8]]) throws {
    func handle(_ element: [UInt8]) throws {}
    var framer = JSONArrayElementFramer()
    for chunk in chunks {
        for element in try framer.feed(chunk) { try handle(element.bytes) }   // a JSONValueBytes each
    }
    _ = try framer.finish()   // throws `.truncated` if `]` never came
}

// Sources/ChatStream/JSONFraming/JSONArrayElementFramer.swift:57
func symbolJSONArrayElementFramer2(framer: inout JSONArrayElementFramer, chunk: [UInt8], parser: JSONParser) throws {
    try chunk.withUnsafeBytes { bytes in
        try framer.feed(bytes) { element, offset in try parser.parse(element) { print($0["type"]?.string ?? "") } }
    }
}

// Sources/ChatStream/JSONFraming/JSONSequenceFramer.swift:11
func symbolJSONSequenceFramer(chunks: [[UInt8]]) throws {
    func handle(_ value: [UInt8]) throws {}
    var framer = JSONSequenceFramer()
    for chunk in chunks {
        for value in try framer.feed(chunk) { try handle(value.bytes) }
    }
    for value in try framer.finish() { try handle(value.bytes) }   // a trailing scalar, if any
}

// Sources/ChatStream/JSONFraming/JSONSequenceFramer.swift:46
func symbolJSONSequenceFramer2(framer: inout JSONSequenceFramer, chunk: [UInt8], parser: JSONParser) throws {
    try chunk.withUnsafeBytes { bytes in
        try framer.feed(bytes) { value, offset in try parser.parse(value) { print($0["type"]?.string ?? "") } }
    }
}

// Sources/ChatStream/JSONFraming/JSONValueBytes.swift:4
func symbolJSONValueBytes(chunks: AsyncStream<[UInt8]>, parser: JSONParser) async throws {
    for try await element in chunks.jsonArrayElements() {
        try parser.parse(element.bytes, streamOffset: element.byteOffset) { root in print(root["text"]?.string ?? "") }
    }
}

// Sources/ChatStreamFraming/NDJSONDecoder.swift:6
func symbolNDJSONDecoder() throws {
    var decoder = NDJSONDecoder()
    var lines: [NDJSONLine] = []
    try decoder.feed(Array("{\"a\":1}\n{\"b\"".utf8), into: &lines)   // one line; `{"b"` waits
    _ = try decoder.finish(into: &lines)                               // `{"b"`, at byte 8
}


// Sources/ChatStreamFraming/ServerSentEvent.swift:3
func symbolServerSentEvent() throws {
    var decoder = ServerSentEventDecoder()
    let events = try decoder.feed(Array("event: ping\ndata: {}\n\n".utf8))
    // [ServerSentEvent(type: "ping", data: "{}", id: nil, retry: nil)]
    _ = events
}

// Sources/ChatStreamFraming/ServerSentEventDecoder.swift:16
func symbolServerSentEventDecoder(pieces: [[UInt8]]) throws {
    var decoder = ServerSentEventDecoder()
    var events: [ServerSentEvent] = []
    for piece in pieces { try decoder.feed(piece, into: &events) }
    let end = try decoder.finish(into: &events)
    if end.isTruncated { /* the stream stopped inside an event */ }
}

// Sources/ChatStreamFraming/ServerSentEventDecoder.swift:109
func symbolServerSentEventDecoder2() throws {
    var decoder = ServerSentEventDecoder()
    let events = try decoder.feed(Array("data: hi\n\n".utf8))  // [ServerSentEvent(data: "hi")]
    _ = events
}

// Sources/ChatStreamFraming/ServerSentEventView.swift:9
func symbolServerSentEventView(decoder: inout ServerSentEventDecoder, buffer: UnsafeRawBufferPointer, parser: JSONParser) throws {
    func handle(_ root: JSONElement) {}
    try decoder.feed(buffer) { event in
        if event.typeIs("message") { try event.withData { try parser.parse($0) { handle($0) } } }
    }
}

// Sources/ChatStreamFraming/StreamEnd.swift:7
func symbolStreamEnd(decoder: inout ServerSentEventDecoder, events: inout [ServerSentEvent]) throws {
    let end = try decoder.finish(into: &events)
    if end.isTruncated { print("lost \(end.droppedBytes) bytes from byte \(end.droppedFromOffset!)") }
}

// Sources/ChatStreamFraming/StreamFramer.swift:23
func symbolStreamFramer() throws {
    var framer = NDJSONDecoder(configuration: .default)
    let lines = try framer.feed(Array("{\"a\":1}\n{\"b\"".utf8))   // one line, at byte 0; `{"b"` waits
    let last = try framer.finish()                                  // `{"b"`, at byte 8
    _ = (lines, last)
}
