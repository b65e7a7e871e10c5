// ReplyChunkBytes writes a reply's chunks straight to bytes; the public UIMessageStreamEncoder
// (through ReplyChunks) is the definition they must equal, byte for byte, for every reply the
// server can make: text with escapes, non-ASCII and spaces anywhere, tool calls, several parts,
// any finish reason, metadata with and without its optional IDs.

import ChatStream
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("A reply's chunks written straight to bytes")
struct ReplyChunkBytesTests {
    static let metadata = [
        ReplyMetadata(conversationId: "c-1", messageId: "m-1", userMessageId: "u-1", userId: nil),
        ReplyMetadata(conversationId: "c-2", messageId: "m-2", userMessageId: nil, userId: "someone \"q\" é\n"),
        ReplyMetadata(conversationId: "c-3", messageId: "m-3", userMessageId: "u-3", userId: "user", credits: 7),
    ]

    static func expectSameBytes(_ plan: ReplyPlan, _ comment: String) {
        for metadata in metadata {
            let expected = ReplyChunks.chunks(for: plan, metadata: metadata).map(\.jsonBytes)
            let written = ReplyChunkBytes.chunks(for: plan, metadata: metadata)
            #expect(written.count == expected.count, "\(comment)")
            for (index, (got, want)) in zip(written, expected).enumerated() where got != want {
                let (gotText, wantText) = (String(decoding: got, as: UTF8.self), String(decoding: want, as: UTF8.self))
                Issue.record(Comment(rawValue: "\(comment), chunk \(index): \(gotText) != \(wantText)"))
            }
        }
    }

    @Test(arguments: [
        "You said: hello there, how are you?", "", " ", "  two  spaces  ", "trailing ", " leading",
        "quotes \" and \\ backslash", "lines\nand\ttabs\r\nand \u{1} control", "é accents à la carte",
        "emoji 👍🏽 and 家族 words", "a \u{301}combining mark after a space", "no-space-at-all",
    ])
    func textRepliesAreTheEncodersBytes(_ text: String) {
        Self.expectSameBytes(ReplyPlan(parts: [.text(text)], finishReason: "stop"), text)
    }

    @Test(arguments: ["stop", "tool-calls", "length", "error", "content-filter", "other", "end_turn", "no such"])
    func everyFinishReasonIsTheEncoders(_ reason: String) {
        Self.expectSameBytes(ReplyPlan(parts: [.text("done now")], finishReason: reason), reason)
    }

    @Test func toolCallsAndSeveralPartsAreTheEncodersBytes() {
        let weather = ReplyGenerator.reply(to: "What is the weather in Lyon?", messageId: "0190-abcd-ef")
        Self.expectSameBytes(weather, "the demo agent's tool call")
        let input: JSONTree = ["city": "Zürich \"old town\"", "days": 3, "units": ["c", nil, true], "x": [:]]
        let mixed = ReplyPlan(
            parts: [
                .text("Let me look that up. "), .toolCall(id: "call_1", name: "get_weather", input: input),
                .text("And another: "), .toolCall(id: "call \"2\"", name: "naïve tool", input: .null),
            ], finishReason: "tool-calls")
        Self.expectSameBytes(mixed, "mixed parts")
        Self.expectSameBytes(ReplyPlan(parts: [], finishReason: "stop"), "no parts")
    }

    @Test func randomTextsAreTheEncodersBytes() {
        let pieces = ["a", "bc", " ", "  ", "\"", "\\", "\n", "\u{7}", "é", "e\u{301}", " \u{301}", "👍🏽", "\r\n", "z "]
        var random = SplitMix64(seed: 32)
        for round in 0..<200 {
            let count = Int.random(in: 0...24, using: &random)
            let text = (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
            Self.expectSameBytes(ReplyPlan(parts: [.text(text)], finishReason: "stop"), "round \(round): \(text)")
        }
    }
}
