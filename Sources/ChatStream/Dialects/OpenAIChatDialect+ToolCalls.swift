// Tool calls as both OpenAI dialects stream them, and helpers the two share.
//
// A call's arguments arrive as pieces of JSON text. Each piece is emitted at once as a
// `toolInputDelta` and appended to a byte buffer; when the call is complete the buffer is parsed
// once (never on every delta). Empty arguments mean `{}`; text that is not JSON becomes a
// `toolInputError` rather than a stream error, since the stream itself is intact.

import ChatStreamJSON

/// One streamed function call: what is known so far and what has been emitted.
struct OpenAIToolCall {
    /// The call's ID once known (or a generated one, fixed when the call starts).
    var id: String?
    /// The function's name once known (never overwritten by a later empty name).
    var name: String?
    /// Whether `toolCallStart` has been emitted.
    var started = false
    /// Whether `toolInputAvailable` or `toolInputError` has been emitted.
    var completed = false
    /// The argument text received so far.
    var arguments: [UInt8] = []

    init(id: String? = nil, name: String? = nil) {
        self.id = id
        self.name = name
    }

    /// Emits `toolCallStart`, then any argument text that arrived before the start.
    mutating func start(fallbackID: @autoclosure () -> String, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard !started else { return }
        let id = self.id ?? fallbackID()
        self.id = id
        started = true
        try emit(.toolCallStart(id: id, name: name ?? "", providerExecuted: false))
        if !arguments.isEmpty {
            try emit(.toolInputDelta(id: id, delta: String(decoding: arguments, as: UTF8.self)))
        }
    }

    /// Adds a piece of argument text, emitting it when the call has started.
    mutating func append(_ piece: UnsafeRawBufferPointer, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard !piece.isEmpty, !completed else { return }
        arguments.append(contentsOf: piece)
        if started, let id {
            try emit(.toolInputDelta(id: id, delta: String(decoding: piece, as: UTF8.self)))
        }
    }

    /// Starts the call if needed, then emits its parsed input (or why it could not be parsed).
    ///
    /// Must not be called while `parser` is reading a unit: it reuses the parser's storage.
    mutating func complete(
        fallbackID: @autoclosure () -> String, parser: JSONParser, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        guard !completed else { return }
        try start(fallbackID: fallbackID(), textDelta: textDelta, emit: emit)
        completed = true
        let id = self.id ?? ""
        let name = self.name ?? ""
        if arguments.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            try emit(.toolInputAvailable(id: id, name: name, input: .object(JSONObject())))
            return
        }
        let input: JSONTree
        do {
            input = try parser.parseValue(arguments)
        } catch let error as JSONError {
            try emit(
                .toolInputError(id: id, name: name, errorText: "tool arguments are not valid JSON: \(error)"))
            return
        }
        try emit(.toolInputAvailable(id: id, name: name, input: input))
    }
}

/// Field readers both OpenAI dialects use.
enum OpenAIWire {
    /// An error object (`{"code","type","message"}`) or error string as a stream-carried error.
    static func errorInfo(_ error: JSONElement) -> StreamErrorInfo {
        if let text = error.string { return StreamErrorInfo(code: nil, message: text) }
        let code = scalarText(error["code"]) ?? scalarText(error["type"])
        let message = error["message"]?.string ?? "the server reported an error"
        return StreamErrorInfo(code: code, message: message)
    }

    /// A string, or a number's literal text; nil for anything else.
    static func scalarText(_ element: JSONElement?) -> String? {
        guard let element else { return nil }
        if let text = element.string { return text.isEmpty ? nil : text }
        return element.number?.text
    }

    /// Whether `element` is a string with at least one byte.
    static func isNonEmptyString(_ element: JSONElement?) -> Bool {
        element?.withUTF8 { !$0.isEmpty } ?? false
    }

    /// The member `key` as a string: nil when absent, null or empty; a malformed-stream error when
    /// it is some other kind of value.
    static func text(
        _ object: JSONElement, _ key: StaticString, field: @autoclosure () -> String,
        eventType: @autoclosure () -> String,
        offset: Int
    ) throws -> String? {
        try textElement(object, key, field: field(), eventType: eventType(), offset: offset)?.string
    }

    /// The member `key` when it is a string with at least one byte: nil when absent, null or
    /// empty; a malformed-stream error when it is some other kind of value.
    static func textElement(
        _ object: JSONElement, _ key: StaticString, field: @autoclosure () -> String,
        eventType: @autoclosure () -> String,
        offset: Int
    ) throws -> JSONElement? {
        guard let element = object[key], !element.isNull else { return nil }
        guard element.kind == .string else {
            throw StreamError(
                .malformed, message: "field is not a string", byteOffset: offset, eventType: eventType(), field: field()
            )
        }
        return element.withUTF8 { $0.isEmpty } == true ? nil : element
    }
}
