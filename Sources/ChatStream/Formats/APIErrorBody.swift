// APIErrorBody: the JSON error a provider answers instead of a stream, read as the error it is.
//
// A request that fails before the reply starts (a bad key, an unknown model, a quota) gets one
// JSON object with an HTTP 4xx or 5xx status, not a stream: Gemini's
// `{"error":{"code":400,"message":…,"status":"INVALID_ARGUMENT"}}` (pretty-printed over many
// lines), OpenAI's and its imitators' `{"error":{"message":…,"type":…,"code":…}}`, Anthropic's
// `{"type":"error","error":{"type":"overloaded_error","message":…}}`, Ollama's `{"error":"…"}`.
// Read by a stream's framing such a body is noise (SSE ignores the line and reports the stream
// truncated; a JSON array finds no `[`; NDJSON finds a line that is not JSON), and the provider's
// message is lost. So `StreamDecoder` looks at the body's first significant byte before framing
// sees anything (`APIErrorBodyGate`): a `{` where the format cannot start with one (every format
// but NDJSON), or a `{` alone on its line for NDJSON (whose lines are whole objects), means the
// body is one JSON value. It is held whole (up to the JSON value limit) and read at the end: an
// error object of a shape above becomes one `.error` event with the provider's code and message
// (a remote error: the CLI exits 1); anything else is malformed, saying what the body was. Every
// other body passes through untouched, so the check costs one comparison per chunk once decided.

import ChatStreamJSON

/// Reads the error objects providers answer with instead of a stream.
public enum APIErrorBody {
    /// The provider's code and message when `body` is an error object of a known shape; nil
    /// otherwise. The code is the most specific one the body gives: Gemini's `status`
    /// (`INVALID_ARGUMENT`, with the HTTP `code` when there is none), OpenAI's `code` (else its
    /// `type`), Anthropic's error `type`.
    public static func info(_ body: JSONTree) -> StreamErrorInfo? {
        guard case .object(let object) = body, let error = object["error"] else { return nil }
        if case .string(let message) = error { return StreamErrorInfo(code: nil, message: message) }
        guard case .object(let details) = error else { return nil }
        let message = details["message"]?.stringValue ?? error.jsonText
        let code =
            details["status"]?.stringValue ?? scalarText(details["code"]) ?? details["type"]?.stringValue
        return StreamErrorInfo(code: code, message: message)
    }

    /// A string as it is, a number as its text; nil for anything else.
    private static func scalarText(_ value: JSONTree?) -> String? {
        switch value {
        case .string(let text): return text.isEmpty ? nil : text
        case .number(let number): return number.text
        default: return nil
        }
    }
}

/// Decides from a body's first bytes whether it is one JSON value instead of a stream, and holds
/// it then (see the file's opening comment). Used by ``StreamDecoder``.
@usableFromInline
struct APIErrorBodyGate {
    private enum State { case undecided, body }

    /// Whether the body is a stream: every byte goes to framing, with nothing held.
    @usableFromInline private(set) var isPassing = false
    private var state = State.undecided
    /// The bytes seen while undecided, or the whole body.
    private var held: [UInt8] = []
    /// How far `held` has been scanned while undecided.
    private var scanned = 0

    @usableFromInline init() {}

    /// Takes the next bytes: nil while they are held; once the body shows it is a stream, every
    /// byte held so far (these included), to be framed.
    ///
    /// - Parameters:
    ///   - objectsAreLines: the format's units are JSON objects one per line (NDJSON), so only
    ///     an object spread over lines is a body.
    ///   - limit: the most bytes a body may hold (the JSON value limit).
    mutating func admit(_ bytes: UnsafeRawBufferPointer, objectsAreLines: Bool, limit: Int) throws -> [UInt8]? {
        held.append(contentsOf: bytes)
        if state == .body {
            guard held.count <= limit else {
                throw StreamError(
                    .limitExceeded, message: "the JSON body exceeds \(limit) bytes", byteOffset: limit)
            }
            return nil
        }
        switch decide(objectsAreLines: objectsAreLines) {
        case .some(true):
            state = .body
            return try admit(
                UnsafeRawBufferPointer(start: nil, count: 0), objectsAreLines: objectsAreLines, limit: limit)
        case .some(false):
            isPassing = true
            defer { held = [] }
            return held
        case .none:
            guard held.count <= limit else {
                isPassing = true
                defer { held = [] }
                return held
            }
            return nil
        }
    }

    /// True for a body, false for a stream, nil while the bytes held do not say.
    private mutating func decide(objectsAreLines: Bool) -> Bool? {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        if scanned == 0 {
            if held.count < 3, bom.starts(with: held) { return nil }
            if held.starts(with: bom) { scanned = 3 }
        }
        while scanned < held.count, Self.isWhitespace(held[scanned]) { scanned += 1 }
        guard scanned < held.count else { return nil }
        guard held[scanned] == UInt8(ascii: "{") else { return false }
        guard objectsAreLines else { return true }
        var next = scanned + 1
        while next < held.count, held[next] == 0x20 || held[next] == 0x09 { next += 1 }
        guard next < held.count else { return nil }
        return held[next] == 0x0A || held[next] == 0x0D
    }

    /// At the end of the input: the bytes to frame when the body never showed what it is (a
    /// stream of whitespace, or empty), or nil after emitting what the held body is.
    ///
    /// - Throws: ``StreamError``, malformed, when the body is not an error object of a known shape.
    mutating func finish(
        configuration: JSONConfiguration, formatName: String, emit: (StreamEvent) throws -> Void
    ) throws -> [UInt8]? {
        guard state == .body else {
            isPassing = true
            defer { held = [] }
            return held
        }
        let body: JSONTree
        do {
            body = try JSONParser(configuration: configuration).parseValue(held)
        } catch let error as JSONError {
            throw StreamError(
                .malformed,
                message: "the body is not a \(formatName) stream but starts as one JSON object, which is not "
                    + "valid: \(error.message)", byteOffset: error.byteOffset)
        }
        guard let info = APIErrorBody.info(body) else {
            throw StreamError(
                .malformed,
                message: "the body is one JSON object, not a \(formatName) stream, and no error object "
                    + "(\(String(body.jsonText.prefix(200))))", byteOffset: 0)
        }
        try emit(.error(info))
        return nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
