// The OpenAI Responses text deltas and Gemini elements read member by member
// (OpenAIResponsesDialect+DeltasByPosition, GeminiDialect+ElementsByPosition): as
// PositionalChunkReadTests for OpenAI chat, the usual unit in any member order is read by
// position and gives the general path's events; every other shape is declined with nothing done
// and then decodes (or fails) exactly as the general path decodes the same bytes, owned and lent,
// at every chunking.

import ChatStreamFraming
import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@testable import ChatStream

private typealias T = MemberReadTesting

// MARK: - OpenAI Responses

enum ResponsesUnits {
    static let head: [String] = [
        #"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}"#,
        #"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}"#,
        #"{"type":"response.content_part.added","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}"#,
        #"{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"First ","logprobs":[]}"#,
    ]
    static let usual =
        #"{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"x1Yz"}"#
    static let tail: [String] = [
        #"{"type":"response.output_text.done","sequence_number":90,"item_id":"msg_1","output_index":0,"content_index":0,"text":""}"#,
        #"{"type":"response.completed","sequence_number":91,"response":{"id":"resp_1","status":"completed","usage":{"input_tokens":1,"output_tokens":2}}}"#,
    ]

    /// The head, `units`, the tail (and `after` past the end) as SSE with `event:` lines.
    static func stream(_ units: [String], after: [String] = []) -> [UInt8] {
        func event(_ json: String) -> String {
            let type = json.split(separator: "\"", maxSplits: 4).dropFirst(3).first ?? "message"
            return "event: \(type)\ndata: \(json)\n\n"
        }
        return Array((head + units + tail + after).map(event).joined().utf8)
    }

    static let accepted: [String] = [
        usual,
        #"{"delta":"Hi","content_index":0,"output_index":0,"sequence_number":4,"type":"response.output_text.delta"}"#,
        #"{"type":"response.output_text.delta","output_index":0,"delta":"Hi"}"#,
        T.edited(usual, [(#""logprobs":[]"#, #""logprobs":[{"token":"Hi","logprob":-0.1,"top_logprobs":[]}]"#)]),
        T.edited(usual, [(#""item_id":"msg_1""#, #""item_id":"other\u00e9\"","item_id":7"#)]),
        T.edited(usual, [(#""delta":"Hi""#, #""delta":"""#)]),
        T.edited(usual, [(#""delta":"Hi""#, "\"delta\":\"é中😀 \u{7F}\"")]),
    ]

    static let declined: [String] = [
        T.edited(usual, [(#""delta":"Hi""#, #""delta":"a\nb""#)]),
        T.edited(usual, [(#""delta":"Hi""#, #""delta":"\u0041""#)]),
        T.edited(usual, [(#""delta":"Hi""#, #""delta":5"#)]),
        T.edited(usual, [(#","delta":"Hi""#, "")]),
        T.edited(usual, [(#""delta":"Hi""#, #""delta":"a","delta":"b""#)]),
        T.edited(usual, [("response.output_text.delta", "response.refusal.delta")]),
        T.edited(usual, [("response.output_text.delta", "response.reasoning_text.delta")]),
        T.edited(usual, [("response.output_text.delta", #"response.output\u005ftext.delta"#)]),
        T.edited(usual, [(#""sequence_number":4"#, #""type":"response.output_text.delta""#)]),
        T.edited(usual, [(#""type":"response.output_text.delta","#, "")]),
        T.edited(usual, [(#""output_index":0"#, #""output_index":1"#)]),
        T.edited(usual, [(#""output_index":0"#, #""output_index":"0""#)]),
        T.edited(usual, [(#""output_index":0"#, #""output_index":0.0"#)]),
        T.edited(usual, [(#","output_index":0"#, "")]),
        T.edited(usual, [(#""content_index":0"#, #""content_index":1"#)]),
        T.edited(usual, [(#""content_index":0"#, #""content_index":null"#)]),
        T.edited(usual, [(#""sequence_number":4"#, #""sequence_number":04"#)]),
        T.edited(usual, [(#""sequence_number":4"#, #""sequence_number": 4"#)]),
        T.edited(usual, [(#""logprobs":[]"#, #""logprobs":[1,]"#)]),
        T.edited(usual, [(#""obfuscation":"x1Yz""#, "\"obfuscation\":\"x\u{01}\"")]),
        " " + usual, usual + " ", String(usual.dropLast()), String(usual.prefix(90)), usual + "}",
    ]
}

@Suite struct OpenAIResponsesDeltaReadTests {
    /// A dialect past the head (its last delta to part 0 of item 0), and whether it reads `unit`
    /// by position, with what it did.
    private func readByPosition(_ unit: [UInt8], json: JSONConfiguration = JSONConfiguration()) throws -> (
        Bool, [String]
    ) {
        var dialect = OpenAIResponsesDialect(configuration: StreamDecoderConfiguration(json: json))
        for head in ResponsesUnits.head {
            try T.withUnit(Array(head.utf8)) { try dialect.decode($0, textDelta: { _, _ in }, emit: { _ in }) }
        }
        guard let last = dialect.lastDeltaPart else { return (false, ["no last delta part"]) }
        var out: [String] = []
        let read = try T.withUnit(unit) { unit in
            try dialect.decodeTextDeltaByPosition(unit.data, to: last) { out.append("text \($0) \($1.string)") }
        }
        return (read, out)
    }

    @Test(arguments: ResponsesUnits.accepted)
    func usualDeltaIsReadByPositionAsTheGeneralPathReadsIt(unit: String) throws {
        let (read, out) = try readByPosition(Array(unit.utf8))
        #expect(read, "\(unit)")
        let text = try JSONParser().parse(Array(unit.utf8)) { $0["delta"]?.string ?? "" }
        #expect(out == (text.isEmpty ? [] : ["text msg_1 \(text)"]))
        let general = T.expectSameAsGeneralPath(
            OpenAIResponsesDialect.self, ResponsesUnits.stream([unit]), chunkings: false)
        #expect(general.error == nil)
    }

    @Test(arguments: ResponsesUnits.declined)
    func otherEventsAreDeclinedAndDecodeAsTheGeneralPathSays(unit: String) throws {
        #expect(try readByPosition(Array(unit.utf8)) == (false, []), "\(unit)")
        T.expectSameAsGeneralPath(OpenAIResponsesDialect.self, ResponsesUnits.stream([unit]), chunkings: false, unit)
    }

    @Test func illFormedUTF8NestingAndDeltasAfterTheEndAreLeftToTheGeneralPath() throws {
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80]] {
            let usual = Array(ResponsesUnits.usual.utf8)
            for marker in ["msg_1", "\"Hi"] {
                let at = usual.firstRange(of: Array(marker.utf8))!.upperBound
                let unit = Array(usual[..<at]) + bad + Array(usual[at...])
                #expect(try readByPosition(unit) == (false, []))
            }
        }
        let deep = T.edited(ResponsesUnits.usual, [(#""logprobs":[]"#, #""logprobs":[[[1]]]"#)])
        #expect(try readByPosition(Array(deep.utf8), json: JSONConfiguration(maxDepth: 3)) == (false, []))
        #expect(try readByPosition(Array(deep.utf8), json: JSONConfiguration(maxDepth: 4)).0)
        let over = T.expectSameAsGeneralPath(
            OpenAIResponsesDialect.self, ResponsesUnits.stream([deep]), json: JSONConfiguration(maxDepth: 3),
            chunkings: false)
        #expect(over.error?.kind == .limitExceeded)
        // After `response.completed` a delta is not read (counted by the general path).
        let after = T.expectSameAsGeneralPath(
            OpenAIResponsesDialect.self, ResponsesUnits.stream([], after: [ResponsesUnits.usual]), chunkings: false)
        #expect(!after.events.contains(.textDelta(id: "msg_1", delta: "Hi")))
    }

    @Test func streamDecodesAsTheGeneralPathAtEveryChunking() throws {
        let pieces = T.randomPieces(count: 300, seed: 32)
        var units: [String] = []
        for (index, piece) in pieces.enumerated() {
            let text = jsonEscaped(piece, unicode: index % 7 == 3)
            var unit = T.edited(ResponsesUnits.usual, [(#""delta":"Hi""#, "\"delta\":\"\(text)\"")])
            // Now and then a second part of the item: its first delta goes the general way.
            if index >= 150 { unit = T.edited(unit, [(#""content_index":0"#, #""content_index":1"#)]) }
            units.append(unit)
        }
        let bytes = ResponsesUnits.stream(units)
        let general = T.expectSameAsGeneralPath(OpenAIResponsesDialect.self, bytes)
        #expect(general.error == nil)
        #expect(T.decode(OpenAIResponsesDialect.self, [T.spacedCopy(bytes, sse: true)]) == general)
        var assembler = MessageAssembler()
        for event in general.events { assembler.apply(event) }
        #expect(assembler.finish()[0].text == "First " + pieces.joined())
        var dialect = OpenAIResponsesDialect()
        for head in ResponsesUnits.head {
            try T.withUnit(Array(head.utf8)) { try dialect.decode($0, textDelta: { _, _ in }, emit: { _ in }) }
        }
        var byPosition = 0
        var plain = 0
        for (index, unit) in units.enumerated() {
            if !unit.contains("\\") && index != 150 { plain += 1 }
            try T.withUnit(Array(unit.utf8)) { unit in
                if let last = dialect.lastDeltaPart,
                    try dialect.decodeTextDeltaByPosition(unit.data, to: last, textDelta: { _, _ in })
                {
                    byPosition += 1
                } else {
                    try dialect.decode(unit, textDelta: { _, _ in }, emit: { _ in })
                }
            }
        }
        #expect(plain > pieces.count / 3)
        #expect(byPosition == plain)
    }
}

// MARK: - Gemini

enum GeminiUnits {
    static let head =
        #"{"candidates":[{"content":{"parts":[{"text":"First "}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-2.0-flash","responseId":"r1"}"#
    static let usual =
        #"{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0,"safetyRatings":[{"category":"HARM_CATEGORY_HATE_SPEECH","probability":"NEGLIGIBLE"}]}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-2.0-flash","responseId":"r1"}"#
    static let tail =
        #"{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":3}}"#

    /// The array of the head, `units` and the tail, as Gemini separates its elements.
    static func stream(_ units: [String]) -> [UInt8] {
        Array(("[" + ([head] + units + [tail]).joined(separator: "\r\n,") + "]").utf8)
    }

    static let accepted: [String] = [
        usual,
        T.edited(usual, [(#","usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}"#, "")]),
        T.edited(usual, [(#""usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}"#, #""usageMetadata":null"#)]),
        #"{"responseId":"r1","usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"Hi"}]}}]}"#,
        T.edited(usual, [(#"}]}],"#, #"}]},{"content":{"parts":[{"text":"other"}]},"finishReason":"STOP"}],"#)]),
        T.edited(usual, [(#"{"text":"Hi"}"#, #"{"text":"Hi","thoughtSignature":"abc=","functionCall":{"name":"x"}}"#)]),
        T.edited(
            usual,
            [(#""index":0"#, #""index":0,"avgLogprobs":-0.25,"citationMetadata":{"citations":[{"startIndex":1}]}"#)]),
        T.edited(usual, [(#""text":"Hi""#, "\"text\":\"é中😀 \u{7F}\"")]),
    ]

    static let declined: [String] = [
        T.edited(usual, [(#""text":"Hi""#, #""text":"a\nb""#)]),
        T.edited(usual, [(#""text":"Hi""#, #""text":"\u0041""#)]),
        T.edited(usual, [(#""text":"Hi""#, #""text":"""#)]),
        T.edited(usual, [(#""text":"Hi""#, #""text":5"#)]),
        T.edited(usual, [(#""text":"Hi""#, #""text":"Hi","thought":true"#)]),
        T.edited(usual, [(#""text":"Hi""#, #""text":"Hi","thought":false"#)]),
        T.edited(usual, [(#"[{"text":"Hi"}]"#, #"[{"text":"Hi"},{"text":"Yo"}]"#)]),
        T.edited(usual, [(#"[{"text":"Hi"}]"#, "[]")]),
        T.edited(usual, [(#"{"text":"Hi"}"#, #"{"functionCall":{"name":"f","args":{}}}"#)]),
        T.edited(usual, [(#""index":0"#, #""index":0,"finishReason":"STOP""#)]),
        T.edited(usual, [(#""index":0"#, #""index":0,"finishReason":null"#)]),
        T.edited(usual, [(#""promptTokenCount":9"#, #""promptTokenCount":10"#)]),
        T.edited(usual, [(#""promptTokenCount":9,"totalTokenCount":9"#, #""totalTokenCount":9,"promptTokenCount":9"#)]),
        T.edited(usual, [(#""responseId":"r1""#, #""error":{"code":500,"message":"boom"}"#)]),
        T.edited(usual, [(#""responseId":"r1""#, #""promptFeedback":{"blockReason":"SAFETY"}"#)]),
        T.edited(usual, [(#"[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0,"#, #"[{"index":0,"#)]),
        #"{"candidates":[],"modelVersion":"gemini-2.0-flash"}"#,
        #"{"candidates":{},"modelVersion":"gemini-2.0-flash"}"#,
        T.edited(usual, [(#"{"parts":[{"text":"Hi"}],"role":"model"}"#, #""Hi""#)]),
        T.edited(usual, [(#""content":{"#, #""content":{"parts":[{"text":"a"}],"#)]),
        T.edited(usual, [(#""index":0"#, #""index":01"#)]),
        T.edited(usual, [(#""index":0"#, #""index": 0"#)]),
        T.edited(usual, [(#""modelVersion":"gemini-2.0-flash""#, "\"modelVersion\":\"gemini\u{01}\"")]),
        T.edited(usual, [(#""modelVersion":"gemini-2.0-flash""#, #""modelVersion":"gemini\x""#)]),
        String(usual.dropLast()), String(usual.prefix(120)),
    ]
}

@Suite struct GeminiElementReadTests {
    /// A dialect past the head element, and whether it reads `unit` by position, with what it did.
    private func readByPosition(_ unit: [UInt8], json: JSONConfiguration = JSONConfiguration()) throws -> (
        Bool, [String]
    ) {
        var dialect = GeminiDialect(configuration: StreamDecoderConfiguration(json: json))
        try T.withUnit(Array(GeminiUnits.head.utf8)) { try dialect.decode($0, textDelta: { _, _ in }, emit: { _ in }) }
        var out: [String] = []
        let read = try T.withUnit(unit) { unit in
            try dialect.decodeTextElementByPosition(
                unit.data, textDelta: { out.append("text \($0) \($1.string)") }, emit: { out.append("\($0)") })
        }
        return (read, out)
    }

    @Test(arguments: GeminiUnits.accepted)
    func usualElementIsReadByPositionAsTheGeneralPathReadsIt(unit: String) throws {
        let (read, out) = try readByPosition(Array(unit.utf8))
        #expect(read, "\(unit)")
        let text = try JSONParser().parse(Array(unit.utf8)) {
            $0["candidates"]?[0]?["content"]?["parts"]?[0]?["text"]?.string ?? ""
        }
        #expect(out == ["text text-0 \(text)"])
        let general = T.expectSameAsGeneralPath(GeminiDialect.self, GeminiUnits.stream([unit]), chunkings: false)
        #expect(general.error == nil)
    }

    @Test(arguments: GeminiUnits.declined)
    func otherElementsAreDeclinedAndDecodeAsTheGeneralPathSays(unit: String) throws {
        #expect(try readByPosition(Array(unit.utf8)) == (false, []), "\(unit)")
        T.expectSameAsGeneralPath(GeminiDialect.self, GeminiUnits.stream([unit]), chunkings: false, unit)
    }

    @Test func illFormedUTF8AndNestingAreLeftToTheGeneralPath() throws {
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80]] {
            let usual = Array(GeminiUnits.usual.utf8)
            for marker in ["gemini", "\"Hi", "NEGLIGIBLE"] {
                let at = usual.firstRange(of: Array(marker.utf8))!.upperBound
                let unit = Array(usual[..<at]) + bad + Array(usual[at...])
                #expect(try readByPosition(unit) == (false, []))
                let stream = Array(("[" + GeminiUnits.head + "\r\n,").utf8) + unit + Array("]".utf8)
                let general = T.expectSameAsGeneralPath(GeminiDialect.self, stream, chunkings: false)
                #expect(general.error?.kind == .malformed)
            }
        }
        let deep = T.edited(GeminiUnits.usual, [(#"{"text":"Hi"}"#, #"{"text":"Hi","x":[[1]]}"#)])
        #expect(try readByPosition(Array(deep.utf8), json: JSONConfiguration(maxDepth: 7)) == (false, []))
        #expect(try readByPosition(Array(deep.utf8), json: JSONConfiguration(maxDepth: 8)).0)
        let over = T.expectSameAsGeneralPath(
            GeminiDialect.self, GeminiUnits.stream([deep]), json: JSONConfiguration(maxDepth: 7), chunkings: false)
        #expect(over.error?.kind == .limitExceeded)
    }

    @Test func streamDecodesAsTheGeneralPathAtEveryChunking() throws {
        let pieces = T.randomPieces(count: 300, seed: 33)
        var units: [String] = []
        for (index, piece) in pieces.enumerated() {
            let text = jsonEscaped(piece, unicode: index % 7 == 3)
            var unit = T.edited(GeminiUnits.usual, [(#""text":"Hi""#, "\"text\":\"\(text)\"")])
            // Usage that changes once: that element goes the general way, the next ones by position.
            if index >= 150 { unit = T.edited(unit, [(#""totalTokenCount":9"#, #""totalTokenCount":10"#)]) }
            units.append(unit)
        }
        let bytes = GeminiUnits.stream(units)
        let general = T.expectSameAsGeneralPath(GeminiDialect.self, bytes)
        #expect(general.error == nil)
        #expect(T.decode(GeminiDialect.self, [T.spacedCopy(bytes, sse: false)]) == general)
        #expect(general.events.filter { if case .metadata = $0 { true } else { false } }.count == 3)
        var assembler = MessageAssembler()
        for event in general.events { assembler.apply(event) }
        #expect(assembler.finish()[0].text == "First " + pieces.joined())
        var dialect = GeminiDialect(configuration: StreamDecoderConfiguration())
        try T.withUnit(Array(GeminiUnits.head.utf8)) { try dialect.decode($0, textDelta: { _, _ in }, emit: { _ in }) }
        var byPosition = 0
        var plain = 0
        for (index, (unit, piece)) in zip(units, pieces).enumerated() {
            if !unit.contains("\\") && !piece.isEmpty && index != 150 { plain += 1 }
            try T.withUnit(Array(unit.utf8)) { unit in
                if try dialect.decodeTextElementByPosition(unit.data, textDelta: { _, _ in }, emit: { _ in }) {
                    byPosition += 1
                } else {
                    try dialect.decode(unit, textDelta: { _, _ in }, emit: { _ in })
                }
            }
        }
        #expect(plain > pieces.count / 3)
        #expect(byPosition == plain)
    }
}
