import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// The per-dialect variant tables, the DocC article's copy of them (VendorVariants.md), and the
/// variants no corpus stream shows on its own: byte-order marks elsewhere than at the start,
/// finishes that repeat.
@Suite(.blockingAllowed) struct VendorVariantTests {
    /// The article section the tables must read as, between its two markers.
    static var expectedSection: String {
        var lines: [String] = []
        for format in StreamFormat.allCases {
            lines.append("")
            lines.append("`\(format.rawValue)`:")
            lines.append("")
            lines.append("| field | shapes | becomes |")
            lines.append("|---|---|---|")
            lines += format.variants.map(\.markdownRow)
        }
        lines.append("")
        return lines.joined(separator: "\n")
    }

    /// Where the tables are printed: the ChatStream catalog's article.
    static let articlePath = "Sources/ChatStream/ChatStream.docc/VendorVariants.md"

    @Test func everyFormatHasATableAndTheArticlePrintsEachExactly() throws {
        for format in StreamFormat.allCases { #expect(!format.variants.isEmpty, "\(format)") }
        let article = try String(contentsOfFile: ProjectPaths.root + "/" + Self.articlePath, encoding: .utf8)
        let begin = "<!-- variants:begin (generated from each dialect's `variants`) -->"
        let end = "<!-- variants:end -->"
        let section =
            try #require(article.range(of: begin)).upperBound..<(try #require(article.range(of: end))).lowerBound
        #expect(
            String(article[section]) == Self.expectedSection,
            "\(Self.articlePath) should read:\n\(Self.expectedSection)"
        )
    }

    @Test func geminiEnumNumbersFollowGooglesReference() {
        #expect(GeminiDialect.finishReasonNames[1] == "STOP")
        #expect(GeminiDialect.finishReasonNames[2] == "MAX_TOKENS")
        #expect(GeminiDialect.finishReasonNames[5] == "OTHER")
        #expect(GeminiDialect.finishReasonNames[6] == "LANGUAGE")
        #expect(GeminiDialect.finishReasonNames[10] == "MALFORMED_FUNCTION_CALL")
        #expect(GeminiDialect.blockReasonNames[1] == "SAFETY")
        #expect(GeminiDialect.blockReasonNames[4] == "PROHIBITED_CONTENT")
        for (number, name) in GeminiDialect.finishReasonNames.enumerated() {
            let lines = replay([Array(#"[{"candidates":[{"finishReason":\#(number)}]}]"#.utf8)], format: .jsonArray)
            #expect(lines.error == nil)
            #expect(lines.lines.first?.contains(#""rawFinishReason":"\#(name)""#) == true, "\(number)")
        }
    }

    @Test func aByteOrderMarkAnywhereButTheStartIsContentOrAnError() {
        let bom = "\u{FEFF}"
        // JSON array: after whitespace, or incomplete, it is an error naming the offset.
        let late = replay([Array(" \(bom)[]".utf8)], format: .jsonArray)
        #expect(late.error?.kind == .malformed && late.error?.byteOffset == 1)
        let cut = replay([[0xEF, 0xBB, UInt8(ascii: "["), UInt8(ascii: "]")]], format: .jsonArray)
        #expect(cut.error?.kind == .malformed && cut.error?.byteOffset == 2)
        // NDJSON: a BOM opening the second line is not JSON.
        let line = #"{"message":{"content":"a"},"done":false}"#
        let second = replay([Array("\(line)\n\(bom)\(line)\n".utf8)], format: .ndjson)
        #expect(second.error?.kind == .malformed)
        #expect(second.lines.first?.contains(#""text":"a""#) == true)
        // v4: a BOM before a later part's code makes an unknown code (skipped), not text.
        let v4 = replay([Array("0:\"a\"\n\(bom)0:\"b\"\nd:{\"finishReason\":\"stop\"}\n".utf8)], format: .aiSDKv4)
        #expect(v4.error == nil && v4.lines.first?.contains(#""text":"a""#) == true)
        // Inside text it is text.
        let text = replay([Array("\(bom)0:\"\(bom)x\"\nd:{}\n".utf8)], format: .aiSDKv4)
        #expect(text.lines.first?.contains("\"text\":\"\(bom)x\"") == true)
    }

    @Test func aRepeatedFinishCarriesTheLastReasonAndComesOnceAfterAllContent() throws {
        let sse = """
            data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"length"}]}

            data: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}

            data: [DONE]


            """
        var decoder = StreamDecoder<OpenAIChatDialect>()
        var events = try decoder.feed(Array(sse.utf8))
        events += try decoder.finish()
        #expect(
            events.filter { if case .finish = $0 { true } else { false } } == [
                .finish(reason: .stop, rawReason: "stop")
            ])
        #expect(OneFinish.violations(events, complete: true).isEmpty)
        #expect(events.suffix(3) == [.textEnd(id: "text-0"), .finish(reason: .stop, rawReason: "stop"), .done])
    }

    @Test func aStreamWithoutDoneIsCompleteWhenEveryChoiceFinishedAndTruncatedWhenCutBefore() throws {
        // Writer and some relays send no `[DONE]`: a finish reason and a clean end are a whole reply.
        let finished = #"data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}"# + "\n\n"
        var decoder = StreamDecoder<OpenAIChatDialect>()
        var events = try decoder.feed(Array(finished.utf8))
        try decoder.finish(into: &events)
        #expect(events.suffix(3) == [.textEnd(id: "text-0"), .finish(reason: .stop, rawReason: "stop"), .done])
        // Two choices, one of them without its finish reason: cut mid-reply.
        let cut =
            #"data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"},{"index":1,"delta":{"content":"b"}}]}"#
            + "\n\n"
        var second = StreamDecoder<OpenAIChatDialect>()
        var partial = try second.feed(Array(cut.utf8))
        #expect(throws: StreamError.self) { try second.finish(into: &partial) }
        #expect(partial.contains(.finish(reason: .stop, rawReason: "stop")))
        #expect(!partial.contains(.done))
    }
}
