// Tests for OllamaDialect, and (at the bottom) the test-only framers and driver the dialect
// tests of this branch share: HandFraming turns SSE text, CODE:JSON lines, NDJSON lines and
// JSON arrays into units, so the dialects can be tested before the real framing layer lands.

@_spi(Dialects) import ChatStream
@_spi(Dialects) import ChatStreamFraming
import Foundation
import TestSupport
import Testing

@Suite(.blockingAllowed) struct OllamaDialectTests {
    static let conversation = """
        {"model":"qwen3","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","thinking":"The user"},"done":false}
        {"model":"qwen3","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","thinking":" greets me."},"done":false}
        {"model":"qwen3","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"Hello"},"done":false}
        {"model":"qwen3","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":", wörld 👋"},"done":false}

        {"model":"qwen3","created_at":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":5000,"prompt_eval_count":26,"eval_count":12}

        """

    @Test func textReasoningUsageAndFinishInOrder() throws {
        let result = HandFraming.run(OllamaDialect.self, HandFraming.lines(Array(Self.conversation.utf8)))
        #expect(result.error == nil)
        #expect(
            result.events == [
                .messageStart(id: nil),
                .reasoningStart(id: "reasoning-0"), .reasoningDelta(id: "reasoning-0", delta: "The user"),
                .reasoningDelta(id: "reasoning-0", delta: " greets me."), .reasoningEnd(id: "reasoning-0"),
                .textStart(id: "text-1"), .textDelta(id: "text-1", delta: "Hello"),
                .textDelta(id: "text-1", delta: ", wörld 👋"), .textEnd(id: "text-1"),
                .metadata(StreamMetadata(usage: ["prompt_eval_count": 26, "eval_count": 12, "total_duration": 5000])),
                .finish(reason: .stop, rawReason: "stop"),
                .done,
            ])
    }

    @Test func sameEventsHoweverTheBytesAreCut() {
        let bytes = Array(Self.conversation.utf8)
        let whole = HandFraming.run(OllamaDialect.self, HandFraming.lines(bytes))
        for chunking in Chunkings.all(of: bytes) {
            let cut = HandFraming.run(OllamaDialect.self, HandFraming.lines(chunking.pieces))
            #expect(cut.events == whole.events, "\(chunking)")
        }
    }

    @Test func wholeToolCallsGetSynthesizedIdsAndOneInputDelta() throws {
        let stream = """
            {"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris","days":2}}},{"function":{"name":"get_time","arguments":{}}}]},"done":false}
            {"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}
            """
        let result = HandFraming.run(OllamaDialect.self, HandFraming.lines(Array(stream.utf8)))
        #expect(result.error == nil)
        #expect(
            result.events == [
                .messageStart(id: nil),
                .toolCallStart(id: "call-0", name: "get_weather", providerExecuted: false),
                .toolInputDelta(id: "call-0", delta: #"{"city":"Paris","days":2}"#),
                .toolInputAvailable(id: "call-0", name: "get_weather", input: ["city": "Paris", "days": 2]),
                .toolCallStart(id: "call-1", name: "get_time", providerExecuted: false),
                .toolInputDelta(id: "call-1", delta: "{}"),
                .toolInputAvailable(id: "call-1", name: "get_time", input: [:]),
                .finish(reason: .stop, rawReason: "stop"), .done,
            ])
    }

    @Test func toolCallIdFromTheWireIsKept() {
        let stream =
            #"{"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_abc","function":{"name":"f","arguments":{"a":1}}}]},"done":true,"done_reason":"stop"}"#
        let result = HandFraming.run(OllamaDialect.self, HandFraming.lines(Array(stream.utf8)))
        #expect(result.events.contains(.toolInputAvailable(id: "call_abc", name: "f", input: ["a": 1])))
    }

    @Test func errorObjectBecomesAnErrorEventAndEndsTheStream() {
        let stream = """
            {"message":{"role":"assistant","content":"Hi"},"done":false}
            {"error":"model 'nope' not found"}
            """
        let result = HandFraming.run(OllamaDialect.self, HandFraming.lines(Array(stream.utf8)))
        #expect(result.error == nil)
        #expect(
            result.events == [
                .messageStart(id: nil), .textStart(id: "text-0"), .textDelta(id: "text-0", delta: "Hi"),
                .textEnd(id: "text-0"), .error(StreamErrorInfo(message: "model 'nope' not found")),
            ])
    }

    @Test func streamWithoutDoneIsTruncatedAfterClosingTheText() {
        let stream = #"{"message":{"role":"assistant","content":"Hel"},"done":false}"#
        let result = HandFraming.run(OllamaDialect.self, HandFraming.lines(Array(stream.utf8)))
        #expect((result.error as? StreamError)?.kind == .truncated)
        #expect(result.events.last == .textEnd(id: "text-0"))
    }

    @Test func lengthFinishAndMissingDoneFieldIsMalformed() {
        let length = #"{"message":{"role":"assistant","content":"a"},"done":true,"done_reason":"length"}"#
        let lengthResult = HandFraming.run(OllamaDialect.self, HandFraming.lines(Array(length.utf8)))
        #expect(lengthResult.events.contains(.finish(reason: .length, rawReason: "length")))

        let bad = "{\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":false}\n{\"message\":{}}"
        let result = HandFraming.run(OllamaDialect.self, HandFraming.lines(Array(bad.utf8)))
        let error = result.error as? StreamError
        #expect(error?.kind == .malformed)
        #expect(error?.field == "done")
        #expect(error?.byteOffset == Array(bad.utf8).firstIndex(of: 0x0A)! + 1)
    }

    @Test func invalidJSONLineIsMalformedWithItsOffset() {
        let bad = "{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"message\":"
        let result = HandFraming.run(OllamaDialect.self, HandFraming.lines(Array(bad.utf8)))
        let error = result.error as? StreamError
        #expect(error?.kind == .malformed)
        #expect((error?.byteOffset ?? 0) > 40)
    }
}

// MARK: - Test-only framing and driver shared by this branch's dialect tests

/// One unit as framing would hand it over, with owned bytes.
struct HandUnit: Equatable {
    var type: [UInt8]
    var data: [UInt8]
    var offset: Int
}

/// What a dialect made of some units: its events, the error that stopped it, the skipped count.
struct HandResult {
    var events: [StreamEvent]
    var error: (any Error)?
    var unknownUnitCount: Int
}

/// Minimal framers for tests (the real ones live in ChatStreamFraming).
enum HandFraming {
    /// SSE per WHATWG, reduced to what dialect tests need: LF, CR and CRLF line ends; `:` comments;
    /// `event` and `data` fields (one leading space dropped; data lines joined with LF); a blank
    /// line dispatches a block with data; a block pending at the end of input is dropped.
    static func sse(_ pieces: [[UInt8]]) -> [HandUnit] {
        var units: [HandUnit] = []
        var line: [UInt8] = []
        var eventType: [UInt8] = []
        var data: [UInt8] = []
        var hasData = false
        var position = 0
        var lineStart = 0
        var blockStart: Int? = nil
        var afterCR = false
        func endLine() {
            defer { line.removeAll(keepingCapacity: true) }
            if line.isEmpty {
                if hasData { units.append(HandUnit(type: eventType, data: data, offset: blockStart ?? 0)) }
                eventType = []
                data = []
                hasData = false
                blockStart = nil
                return
            }
            if blockStart == nil { blockStart = lineStart }
            if line[0] == UInt8(ascii: ":") { return }
            let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.count
            var value = colon < line.count ? Array(line[(colon + 1)...]) : []
            if value.first == 0x20 { value.removeFirst() }
            switch String(decoding: line[..<colon], as: UTF8.self) {
            case "data":
                if hasData { data.append(0x0A) }
                data += value
                hasData = true
            case "event": eventType = value
            default: break
            }
        }
        for piece in pieces {
            for byte in piece {
                defer { position += 1 }
                if afterCR {
                    afterCR = false
                    if byte == 0x0A {
                        lineStart = position + 1
                        continue
                    }
                }
                if byte == 0x0A || byte == 0x0D {
                    afterCR = byte == 0x0D
                    endLine()
                    lineStart = position + 1
                } else {
                    line.append(byte)
                }
            }
        }
        return units
    }

    static func sse(_ text: String) -> [HandUnit] { sse([Array(text.utf8)]) }

    /// Non-blank lines (LF or CRLF); for `CODE:JSON` lines the code becomes the unit's type.
    static func lines(_ pieces: [[UInt8]], codes: Bool = false) -> [HandUnit] {
        var units: [HandUnit] = []
        var line: [UInt8] = []
        var position = 0
        var lineStart = 0
        func endLine() {
            if line.last == 0x0D { line.removeLast() }
            if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                if codes, let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                    units.append(
                        HandUnit(type: Array(line[..<colon]), data: Array(line[(colon + 1)...]), offset: lineStart))
                } else {
                    units.append(HandUnit(type: [], data: line, offset: lineStart))
                }
            }
            line.removeAll(keepingCapacity: true)
        }
        for piece in pieces {
            for byte in piece {
                if byte == 0x0A {
                    endLine()
                    lineStart = position + 1
                } else {
                    line.append(byte)
                }
                position += 1
            }
        }
        endLine()  // NDJSON and v4 lines may end without a newline
        return units
    }

    static func lines(_ bytes: [UInt8], codes: Bool = false) -> [HandUnit] { lines([bytes], codes: codes) }

    /// The elements of a top-level JSON array (string- and nesting-aware scan).
    static func jsonArray(_ text: String) -> [HandUnit] {
        let bytes = Array(text.utf8)
        var units: [HandUnit] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start: Int? = nil
        for (i, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x22:
                inString = true
                if depth == 1 && start == nil { start = i }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 1 && start == nil { start = i }
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0, let s = start {
                    units.append(HandUnit(type: [], data: Array(bytes[s..<i]), offset: s))
                    start = nil
                }
            case UInt8(ascii: ","):
                if depth == 1, let s = start {
                    units.append(HandUnit(type: [], data: Array(bytes[s..<i]), offset: s))
                    start = nil
                }
            case 0x20, 0x0A, 0x0D, 0x09: break
            default:
                if depth == 1 && start == nil { start = i }
            }
        }
        return units
    }

    /// Runs a dialect over units, then `finish`; collects events until the first error.
    static func run<D: StreamDialect>(
        _ type: D.Type, _ units: [HandUnit], configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()
    ) -> HandResult {
        var dialect = D(configuration: configuration)
        var events: [StreamEvent] = []
        do {
            for unit in units {
                try unit.type.withUnsafeBytes { type in
                    try unit.data.withUnsafeBytes { data in
                        try dialect.decode(FramedUnit(type: type, data: data, streamOffset: unit.offset)) {
                            events.append($0)
                        }
                    }
                }
            }
            try dialect.finish { events.append($0) }
        } catch {
            return HandResult(events: events, error: error, unknownUnitCount: dialect.unknownUnitCount)
        }
        return HandResult(events: events, error: nil, unknownUnitCount: dialect.unknownUnitCount)
    }
}

extension [StreamEvent] {
    /// The text deltas joined.
    var joinedText: String {
        map { if case .textDelta(_, let delta) = $0 { delta } else { "" } }.joined()
    }
    /// The reasoning deltas joined.
    var joinedReasoning: String {
        map { if case .reasoningDelta(_, let delta) = $0 { delta } else { "" } }.joined()
    }
    /// Every finish event's raw reason.
    var rawFinishReasons: [String] {
        compactMap { if case .finish(_, let raw) = $0 { raw ?? "(none)" } else { nil } }
    }
}
