// The OpenAI chat chunks, OpenAI Responses text deltas and Gemini elements read member by member
// (OpenAIChatDialect+ChunksByPosition, OpenAIResponsesDialect+DeltasByPosition,
// GeminiDialect+ElementsByPosition): the usual unit, with its other members in any order and of
// any kind, is read by position and gives the general path's events; every other shape is
// declined with nothing done, and the stream then decodes (or fails) exactly as the general path
// decodes the same bytes, owned and lent, at every chunking.

import ChatStreamFraming
import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@testable import ChatStream

private typealias T = MemberReadTesting

// MARK: - OpenAI chat

enum ChatUnits {
    static let head =
        #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1727346173,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}"#
    static let usual =
        #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1727346173,"model":"gpt-4o","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}"#
    static let tail =
        #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1727346173,"model":"gpt-4o","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}"#

    /// The head, `units`, the tail and `[DONE]` as SSE.
    static func stream(_ units: [String]) -> [UInt8] {
        Array(([head] + units + [tail, "[DONE]"]).map { "data: \($0)\n\n" }.joined().utf8)
    }

    static let accepted: [String] = [
        usual,
        T.edited(usual, [(#"{"content":"Hi"}"#, #"{"role":"assistant","content":"Hi"}"#)]),
        T.edited(
            usual,
            [
                (
                    #"{"content":"Hi"}"#,
                    #"{"content":"Hi","refusal":null,"tool_calls":null,"reasoning_content":null,"reasoning":null,"reasoning_details":null}"#
                )
            ]),
        T.edited(
            usual,
            [
                (
                    #""logprobs":null"#,
                    #""logprobs":{"content":[{"token":"Hi","logprob":-0.0025094282,"bytes":[72,105],"top_logprobs":[]}],"refusal":null}"#
                )
            ]),
        #"{"choices":[{"finish_reason":null,"delta":{"content":"Hi"},"index":0}],"model":"gpt-4o","id":"chatcmpl-1"}"#,
        T.edited(usual, [(#""system_fingerprint":"fp_1""#, #""usage":null,"service_tier":"default","usage":7"#)]),
        T.edited(usual, [(#""model":"gpt-4o""#, #""model":"gpt-4o \"mini\" \u00e9\/x\uD800","created":-1.5e+3"#)]),
        #"{"id":"c","choices":[{"delta":{"content":"Hi"}}]}"#,
        T.edited(
            usual,
            [
                (
                    #""finish_reason":null"#,
                    #""finish_reason":null,"native_finish_reason":null,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}"#
                )
            ]),
        T.edited(usual, [(#""content":"Hi""#, "\"content\":\"é中😀 \u{7F}\"")]),
        T.edited(usual, [(#""index":0"#, #""index":2"#)]),
        T.edited(usual, [(#""id":"chatcmpl-1""#, #""id":"a","id":"b""#)]),
    ]

    static let declined: [String] = [
        // The text: escaped, empty, not a string, absent.
        T.edited(usual, [(#""content":"Hi""#, #""content":"a\nb""#)]),
        T.edited(usual, [(#""content":"Hi""#, #""content":"\u0041""#)]),
        T.edited(usual, [(#""content":"Hi""#, #""content":"""#)]),
        T.edited(usual, [(#""content":"Hi""#, #""content":5"#)]),
        T.edited(usual, [(#""content":"Hi""#, #""content":null"#)]),
        T.edited(usual, [(#""content":"Hi""#, #""content":[{"type":"text","text":"Hi"}]"#)]),
        T.edited(usual, [(#"{"content":"Hi"}"#, #"{}"#)]),
        T.edited(usual, [(#""delta":{"content":"Hi"}"#, #""delta":null"#)]),
        T.edited(usual, [(#""delta":{"content":"Hi"}"#, #""delta":"Hi""#)]),
        // Whitespace.
        T.edited(usual, [(#""id":"chatcmpl-1""#, #""id": "chatcmpl-1""#)]),
        T.edited(usual, [(#"{"content""#, #"{ "content""#)]),
        T.edited(usual, [(#"]}"#, #"] }"#)]),
        " " + usual, usual + " ", usual + "\t",
        // Members the general path reads, not as this read takes them.
        T.edited(usual, [(#""system_fingerprint":"fp_1""#, #""usage":{"prompt_tokens":1}"#)]),
        T.edited(usual, [(#""system_fingerprint":"fp_1""#, #""error":null"#)]),
        T.edited(usual, [(#""system_fingerprint":"fp_1""#, #""error":{"message":"boom"}"#)]),
        T.edited(
            usual,
            [(#"}]}"#, #"},{"index":1,"delta":{"content":"Yo"},"logprobs":null,"finish_reason":null}]}"#)]),
        T.edited(usual, [(#"[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]"#, "[]")]),
        T.edited(usual, [(#"[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]"#, "null")]),
        T.edited(usual, [(#"[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]"#, "{}")]),
        T.edited(usual, [(#""finish_reason":null"#, #""finish_reason":"stop""#)]),
        T.edited(usual, [(#"{"content":"Hi"}"#, #"{"content":"Hi","refusal":"no"}"#)]),
        T.edited(usual, [(#"{"content":"Hi"}"#, #"{"content":"Hi","tool_calls":[]}"#)]),
        T.edited(usual, [(#"{"content":"Hi"}"#, #"{"reasoning_content":"think","content":"Hi"}"#)]),
        T.edited(usual, [(#"{"content":"Hi"}"#, #"{"content":"Hi","reasoning":""}"#)]),
        // Repeated members it reads, a key written with an escape.
        T.edited(usual, [(#""system_fingerprint":"fp_1""#, #""choices":[]"#)]),
        T.edited(usual, [(#"{"content":"Hi"}"#, #"{"content":"a","content":"b"}"#)]),
        T.edited(usual, [(#""index":0"#, #""index":0,"index":1"#)]),
        T.edited(usual, [(#"{"content":"Hi"}"#, #"{"cont\u0065nt":"Hi"}"#)]),
        // Indexes the general path refuses or reads its own way.
        T.edited(usual, [(#""index":0"#, #""index":1024"#)]),
        T.edited(usual, [(#""index":0"#, #""index":-1"#)]),
        T.edited(usual, [(#""index":0"#, #""index":0.0"#)]),
        T.edited(usual, [(#""index":0"#, #""index":"0""#)]),
        // Numbers outside the grammar, a literal cut short, in a skipped member.
        T.edited(usual, [(#""created":1727346173"#, #""created":01"#)]),
        T.edited(usual, [(#""created":1727346173"#, #""created":1."#)]),
        T.edited(usual, [(#""created":1727346173"#, #""created":-"#)]),
        T.edited(usual, [(#""created":1727346173"#, #""created":1e"#)]),
        T.edited(usual, [(#""created":1727346173"#, #""created":+1"#)]),
        T.edited(usual, [(#""logprobs":null"#, #""logprobs":nul"#)]),
        // Raw control characters and ill-formed UTF-8 (below), units cut short.
        T.edited(usual, [(#""model":"gpt-4o""#, "\"model\":\"gpt\u{01}4o\"")]),
        T.edited(usual, [(#""content":"Hi""#, "\"content\":\"H\u{01}i\"")]),
        String(usual.dropLast()), String(usual.dropLast(3)), String(usual.prefix(60)), String(usual.prefix(130)),
        usual + "}", usual + usual,
    ]
}

@Suite struct OpenAIChatChunkReadTests {
    /// A dialect past the head chunk, and whether it reads `unit` by position, with what it did.
    private func readByPosition(_ unit: [UInt8], json: JSONConfiguration = JSONConfiguration()) throws -> (
        Bool, [String]
    ) {
        var dialect = OpenAIChatDialect(configuration: StreamDecoderConfiguration(json: json))
        try T.withUnit(Array(ChatUnits.head.utf8)) { try dialect.decode($0, textDelta: { _, _ in }, emit: { _ in }) }
        var out: [String] = []
        let read = try T.withUnit(unit) { unit in
            try dialect.decodeContentChunkByPosition(
                unit.data, textDelta: { out.append("text \($0) \($1.string)") }, emit: { out.append("\($0)") })
        }
        return (read, out)
    }

    @Test(arguments: ChatUnits.accepted)
    func usualChunkIsReadByPositionAsTheGeneralPathReadsIt(unit: String) throws {
        let (read, _) = try readByPosition(Array(unit.utf8))
        #expect(read, "\(unit)")
        let general = T.expectSameAsGeneralPath(OpenAIChatDialect.self, ChatUnits.stream([unit]), chunkings: false)
        #expect(general.error == nil)
        #expect(general.events.contains { if case .textDelta = $0 { true } else { false } })
    }

    @Test func usualChunkLendsTheTextTheParserReads() throws {
        for text in ["Hi", " world", "é中😀", "}{\u{7F}", String(repeating: "word ", count: 80)] {
            let unit = Array(T.edited(ChatUnits.usual, [(#""content":"Hi""#, "\"content\":\"\(text)\"")]).utf8)
            let (read, out) = try readByPosition(unit)
            let parsed = try JSONParser().parse(unit) { $0["choices"]?[0]?["delta"]?["content"]?.string }
            #expect(read)
            #expect(out == ["textStart(id: \"text-0\")", "text text-0 \(parsed ?? "")"])
        }
    }

    @Test(arguments: ChatUnits.declined)
    func otherChunksAreDeclinedAndDecodeAsTheGeneralPathSays(unit: String) throws {
        let (read, out) = try readByPosition(Array(unit.utf8))
        #expect(!read, "\(unit)")
        #expect(out.isEmpty)
        T.expectSameAsGeneralPath(OpenAIChatDialect.self, ChatUnits.stream([unit]), chunkings: false, unit)
    }

    @Test func illFormedUTF8AndLimitsAreLeftToTheGeneralPath() throws {
        var units: [[UInt8]] = []
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] {
            let usual = Array(ChatUnits.usual.utf8)
            let model = usual.firstRange(of: Array("gpt-4o".utf8))!.upperBound
            let text = usual.firstRange(of: Array("\"Hi".utf8))!.upperBound
            units.append(Array(usual[..<model]) + bad + Array(usual[model...]))
            units.append(Array(usual[..<text]) + bad + Array(usual[text...]))
        }
        for unit in units {
            #expect(try readByPosition(unit) == (false, []))
            let stream =
                Array("data: ".utf8) + Array(ChatUnits.head.utf8) + Array("\n\ndata: ".utf8) + unit + [0x0A, 0x0A]
            let general = T.expectSameAsGeneralPath(OpenAIChatDialect.self, stream, chunkings: false)
            #expect(general.error?.kind == .malformed)
        }
        // A skipped member nested over the depth limit (declined; the general path's error), and
        // within it (read); a unit longer than a string may be (declined; read the general way).
        let deep = T.edited(ChatUnits.usual, [(#""logprobs":null"#, #""logprobs":[[[[[1]]]]]"#)])
        #expect(try readByPosition(Array(deep.utf8), json: JSONConfiguration(maxDepth: 7)) == (false, []))
        #expect(try readByPosition(Array(deep.utf8), json: JSONConfiguration(maxDepth: 8)).0)
        let overDepth = T.expectSameAsGeneralPath(
            OpenAIChatDialect.self, ChatUnits.stream([deep]), json: JSONConfiguration(maxDepth: 7), chunkings: false)
        #expect(overDepth.error?.kind == .limitExceeded)
        T.expectSameAsGeneralPath(
            OpenAIChatDialect.self, ChatUnits.stream([deep]), json: JSONConfiguration(maxDepth: 8), chunkings: false)
        #expect(
            try readByPosition(Array(ChatUnits.usual.utf8), json: JSONConfiguration(maxStringBytes: 150)) == (false, [])
        )
        let longUnit = T.expectSameAsGeneralPath(
            OpenAIChatDialect.self, ChatUnits.stream([ChatUnits.usual]), json: JSONConfiguration(maxStringBytes: 150),
            chunkings: false)
        #expect(longUnit.error == nil)
        let long = T.edited(
            ChatUnits.usual, [(#""model":"gpt-4o""#, #""model":""# + String(repeating: "m", count: 300) + "\"")])
        let over = T.expectSameAsGeneralPath(
            OpenAIChatDialect.self, ChatUnits.stream([long]), json: JSONConfiguration(maxValueBytes: 400),
            chunkings: false)
        #expect(over.error?.kind == .limitExceeded)
    }

    @Test func streamDecodesAsTheGeneralPathAtEveryChunking() throws {
        let pieces = T.randomPieces(count: 300, seed: 31)
        var units: [String] = []
        for (index, piece) in pieces.enumerated() {
            let text = jsonEscaped(piece, unicode: index % 7 == 3)
            units.append(T.edited(ChatUnits.usual, [(#""content":"Hi""#, "\"content\":\"\(text)\"")]))
        }
        let bytes = ChatUnits.stream(units)
        let general = T.expectSameAsGeneralPath(OpenAIChatDialect.self, bytes)
        #expect(general.error == nil)
        let spaced = T.decode(OpenAIChatDialect.self, [T.spacedCopy(bytes, sse: true)])
        #expect(spaced == general)
        var assembler = MessageAssembler()
        for event in general.events { assembler.apply(event) }
        #expect(assembler.finish()[0].text == pieces.joined())
        // Every chunk whose text has no escape is read by position.
        var dialect = OpenAIChatDialect()
        try T.withUnit(Array(ChatUnits.head.utf8)) { try dialect.decode($0, textDelta: { _, _ in }, emit: { _ in }) }
        var byPosition = 0
        var plain = 0
        for (unit, piece) in zip(units, pieces) {
            if !unit.contains("\\") && !piece.isEmpty { plain += 1 }
            try T.withUnit(Array(unit.utf8)) { unit in
                if try dialect.decodeContentChunkByPosition(unit.data, textDelta: { _, _ in }, emit: { _ in }) {
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

// MARK: - Recorded streams

@Suite struct RecordedStreamByPositionTests {
    /// The captures (../shared/captures) and the vendor fixtures of the three formats.
    static let streams: [CorpusStream] = {
        let formats: [StreamFormat] = [.openAIChat, .openAIResponses, .jsonArray]
        var streams = StreamCorpus.all.filter { formats.contains($0.format) }
        let folders: [(String, StreamFormat, String)] = [
            ("openai-chat", .openAIChat, ".sse"), ("openai-responses", .openAIResponses, ".sse"),
            ("json-array", .jsonArray, ".json"),
        ]
        for (folder, format, suffix) in folders {
            let directory = ProjectPaths.fixtures + "/vendor-streams/" + folder
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
            for file in files where file.hasSuffix(suffix) && !file.hasSuffix(".expected.json") {
                guard let data = FileManager.default.contents(atPath: directory + "/" + file) else { continue }
                streams.append(CorpusStream(name: file, format: format, bytes: Array(data)))
            }
        }
        return streams
    }()

    @Test func everyFormatHasRecordedStreams() {
        #expect(Self.streams.filter { $0.format == .openAIChat }.count >= 20)
        #expect(Self.streams.filter { $0.format == .openAIResponses }.count >= 10)
        #expect(Self.streams.filter { $0.format == .jsonArray }.count >= 10)
    }

    @Test(arguments: streams)
    func recordedStreamDecodesAsTheGeneralPath(stream: CorpusStream) {
        func check<D: StreamDialect>(_ dialect: D.Type, sse: Bool) {
            let general = T.expectSameAsGeneralPath(dialect, stream.bytes, "\(stream.name)")
            // The spaced copy is read only the general way: the same events (an error's offset moves).
            let spaced = T.decode(dialect, [T.spacedCopy(stream.bytes, sse: sse)])
            #expect(spaced.events == general.events, "\(stream.name)")
            #expect(spaced.error?.kind == general.error?.kind, "\(stream.name)")
        }
        switch stream.format {
        case .openAIChat: check(OpenAIChatDialect.self, sse: true)
        case .openAIResponses: check(OpenAIResponsesDialect.self, sse: true)
        default: check(GeminiDialect.self, sse: false)
        }
    }
}
