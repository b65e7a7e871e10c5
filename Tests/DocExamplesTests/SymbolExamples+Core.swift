// swift-format-ignore-file
// (The examples are kept exactly as the doc comments show them.)
// The Swift examples of the `///` comments in ChatStream, compiled (see
// DocBlocksAreCompiledTests and README.md here). Each function holds one example verbatim, under
// a comment naming where it is; its parameters supply what the example uses. The functions are
// never called: compiling them is the test.

import ChatStream
import ChatStreamClient
import ChatStreamFraming

// Sources/ChatStreamLive/ConversationEvent.swift:10
func symbolConversationEvent(bytes: [UInt8]) throws {
    var decoder = ConversationEventDecoder(format: .home)
    for event in try decoder.feed(bytes) {
        if case .messageCreated(let message) = event.kind { print(message.text) }
    }
}

// Sources/ChatStreamLive/ConversationEventDecoder.swift:17
func symbolConversationEventDecoder(pieces: [[UInt8]]) throws {
    var decoder = ConversationEventDecoder(format: .salesforceMessaging)
    var events: [ConversationEvent] = []
    for piece in pieces { try decoder.feed(piece, into: &events) }
    let end = try decoder.finish(into: &events)   // an event cut off by the end is dropped, and reported
    print(events.count, end.isTruncated, decoder.unknownEventCount, decoder.skippedErrors)
}

// Sources/ChatStreamLive/LiveMessageDrafts.swift:8
func symbolLiveMessageDrafts(events: [ConversationEvent]) {
    var drafts = LiveMessageDrafts()
    for event in events {
        drafts.apply(event)
        if case .messageDelta(_, let delta) = event.kind { print(drafts.text(of: delta.messageId) ?? "") }
    }
}

// Sources/ChatStream/Events/StreamEvent.swift:7
func symbolStreamEvent(bytes: AsyncStream<[UInt8]>) async throws {
    for try await event in bytes.streamEvents(format: .uiMessageStream) {
        if case .textDelta(_, let delta) = event { print(delta, terminator: "") }
    }
}

// Sources/ChatStream/Formats/AnyStreamDecoder.swift:5
func symbolAnyStreamDecoder(bytes: [UInt8]) throws {
    var decoder = AnyStreamDecoder(format: nil)   // detect
    let events = try decoder.feed(bytes)
    let last = try decoder.finish()
    _ = (events, last)
}

// Sources/ChatStream/Async/AsyncAssembledMessageSequence.swift:12
func symbolAsyncAssembledMessageSequence(body: AsyncStream<[UInt8]>) async throws {
    var last: AssembledMessage?
    do {
        for try await message in body.assembledMessages(format: .uiMessageStream) { last = message }
    } catch let error as StreamError {
        print("stream failed: \(error); kept \(last?.text.count ?? 0) characters")
    }
}

// Sources/ChatStream/Async/AsyncFinalMessageSequence.swift:98
func symbolAsyncFinalMessageSequence(response: HTTPResponse) async throws {
    var reply: AssembledMessage?
    do {
        for try await message in response.body.finalMessages(format: .uiMessageStream) {
            reply = reply ?? message   // the first choice (the only one, unless n > 1)
        }
    } catch {
        print("stream failed: \(error)")   // reply?.error says so too; reply keeps what arrived
    }
    print(reply?.text ?? "")
}

// Sources/ChatStream/Async/AsyncMessageUpdateSequence.swift:35
func symbolAsyncMessageUpdateSequence(body: AsyncStream<[UInt8]>) async throws {
    var reply: AssembledMessage?
    do {
        for try await update in body.messageUpdates(format: .uiMessageStream) {
            if case .textDelta(_, let delta)? = update.event { print(delta, terminator: "") }
            if update.isFinal { reply = update.message }
        }
    } catch {
        print("\nstream failed: \(error); kept \(reply?.text.count ?? 0) characters")
    }
}

// Sources/ChatStream/Async/AsyncSequence+StreamEvents.swift:14
func symbolAsyncStreamEventSequence(response: HTTPResponse) async throws {
    for try await event in response.body.streamEvents(format: .uiMessageStream) {
        if case .textDelta(_, let delta) = event { print(delta, terminator: "") }
    }
}

// Sources/ChatStream/Engine/StreamDecoder.swift:15
func symbolStreamDecoder(chunks: [[UInt8]]) throws {
    var decoder = StreamDecoder<UIMessageStreamDialect>()
    for chunk in chunks {
        for event in try decoder.feed(chunk) { print(event) }
    }
    for event in try decoder.finish() { print(event) }   // throws StreamError(.truncated) if `[DONE]` never came
}

// Sources/ChatStream/Engine/StreamEventDecoding.swift:13
func symbolStreamEventDecoding(decoder: inout AnyStreamDecoder, chunk: [UInt8]) throws {
    struct Text: StreamEventSink {
        var bytes: [UInt8] = []
        mutating func textDelta(id: String, delta: CheckedUTF8) { delta.append(to: &bytes) }
        mutating func event(_ event: StreamEvent) {}
    }
    var sink = Text()
    try decoder.feed(chunk, into: &sink)
    try decoder.finish(into: &sink)
}

// Sources/ChatStream/Engine/StreamEventSink.swift:16
func symbolStreamEventSink() {
    struct Counter: StreamEventSink {
        var textBytes = 0, events = 0
        mutating func textDelta(id: String, delta: CheckedUTF8) { textBytes += delta.count }
        mutating func event(_ event: StreamEvent) { events += 1 }
    }
}

// Sources/ChatStream/Engine/StreamEventSink.swift:42
struct SymbolStreamEventSink2: StreamEventSink {
    var reply: [UInt8] = []
    let socket: ByteOutput

    mutating func textDelta(id: String, delta: CheckedUTF8) {
        delta.append(to: &reply)                         // copy what you keep
        delta.withSpan { socket.write($0) }              // or move the bytes on, lent
    }

    mutating func event(_ event: StreamEvent) {}
}

// Sources/ChatStream/Assembly/AnyMessageDecoder.swift:16
func symbolAnyMessageDecoder(chunks: [[UInt8]]) {
    var decoder = AnyMessageDecoder(format: nil)   // detect
    for chunk in chunks {
        do { try decoder.feed(chunk) } catch { break }   // the error is kept in `failure`
    }
    let replies = decoder.finish()   // one message per choice
    print(decoder.format?.rawValue ?? "unknown", replies[0].text)
}

// Sources/ChatStream/Assembly/MessageAssembler.swift:22
func symbolMessageAssembler(events: [StreamEvent]) {
    var assembler = MessageAssembler()
    for event in events { assembler.apply(event) }
    let message = assembler.finish(error: nil)[0]
    print(message.text)
}

// Sources/ChatStream/Assembly/MessageDecoder.swift:23
func symbolMessageDecoder(chunks: [[UInt8]]) {
    var decoder = MessageDecoder<UIMessageStreamDialect>()
    for chunk in chunks {
        do { try decoder.feed(chunk) } catch { break }   // the error is kept in `failure`
    }
    let reply = decoder.finish()[0]
    print(reply.text, reply.error?.message ?? "complete")
}

// Sources/ChatStreamHTTP/HTTPHeaderFields.swift:6
func symbolHTTPHeaderFields() {
    var headers: HTTPHeaderFields = ["Accept": "text/event-stream"]
    headers.append(name: "X-Device-Id", value: "device-1")
    headers["accept"]                          // "text/event-stream"
    headers.contains("Connection", token: "close")  // false
}

// Sources/ChatStream/Dialects/AnthropicDialect.swift:37
func symbolAnthropicDialect(unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
    var dialect = AnthropicDialect(configuration: StreamDecoderConfiguration())
    try dialect.decode(unit, textDelta: textDelta, emit: emit)   // one SSE event per unit
    try dialect.finish(textDelta: textDelta, emit: emit)           // finishes each message
}

// Sources/ChatStream/Dialects/DataStreamV4Dialect.swift:32
func symbolDataStreamV4Dialect(unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
    var dialect = DataStreamV4Dialect(configuration: StreamDecoderConfiguration())
    try dialect.decode(unit, textDelta: textDelta, emit: emit)   // unit.type = "0", unit.data = "\"Hi\""
}

// Sources/ChatStream/Dialects/GeminiDialect.swift:33
func symbolGeminiDialect(unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
    var dialect = GeminiDialect(configuration: StreamDecoderConfiguration())
    try dialect.decode(unit, textDelta: textDelta, emit: emit)   // one array element per unit
    try dialect.finish(textDelta: textDelta, emit: emit)           // .done after a finishReason
}

// Sources/ChatStream/Dialects/OllamaDialect.swift:25
func symbolOllamaDialect(unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
    var dialect = OllamaDialect(configuration: StreamDecoderConfiguration())
    try dialect.decode(unit, textDelta: textDelta, emit: emit)   // one line per unit
}

// Sources/ChatStream/Dialects/OpenAIChatDialect.swift:38
func symbolOpenAIChatDialect(unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
    var dialect = OpenAIChatDialect(configuration: StreamDecoderConfiguration())
    try dialect.decode(unit, textDelta: textDelta, emit: emit)   // once per SSE event
    try dialect.finish(textDelta: textDelta, emit: emit)           // at the end of the input
}

// Sources/ChatStream/Dialects/OpenAIResponsesDialect.swift:36
func symbolOpenAIResponsesDialect(unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
    var dialect = OpenAIResponsesDialect(configuration: StreamDecoderConfiguration())
    try dialect.decode(unit, textDelta: textDelta, emit: emit)   // once per SSE event
    try dialect.finish(textDelta: textDelta, emit: emit)           // at the end of the input
}

// Sources/ChatStream/Encoding/UIMessageStreamEncoder.swift:20
func symbolUIMessageStreamEncoder() {
    var encoder = UIMessageStreamEncoder(firstEventID: 1)
    var body: [UInt8] = []
    for event in [StreamEvent.textStart(id: "t"), .textDelta(id: "t", delta: "Hi"), .textEnd(id: "t")] {
        body += encoder.encode(event)
    }
    body += encoder.finish()  // ends with `data: [DONE]`
}

// Sources/ChatStream/Encoding/AsyncUIMessageStreamSequence.swift:14
func symbolAsyncUIMessageStreamSequence(upstream: AsyncStream<[UInt8]>) async throws {
    for await bytes in upstream.streamEvents(format: .openAIChat).uiMessageStream() {
        print(String(decoding: bytes, as: UTF8.self), terminator: "")
    }
}

// Sources/ChatStream/Encoding/ProviderRequest.swift:15
func symbolProviderRequest() {
    let request = ProviderRequest(
        family: .openAIChat, model: "llama3.2", systemPrompt: "You are terse.",
        messages: [ProviderRequest.Message(role: .user, parts: [.text("Hello")])])
    let url = request.url(baseURL: "http://127.0.0.1:11434/v1")  // .../v1/chat/completions
    let body = request.body.jsonText  // {"model":"llama3.2","stream":true,"messages":[...]}
}
