// `chatstream replay --output message --json` writes a long reply's JSON in pieces
// (PiecewiseJSONWriter in the CLI): byte for byte the library's `jsonValue.jsonText`, and without
// copying the text into its JSON to print it (issue 32: it peaked at 3.7 times the text).

import ChatStream
import Foundation
import TestSupport
import Testing

@Suite(.blockingAllowed) struct ReplayJSONOutputTests {
    /// A UI message stream with one text part of `deltas`, each as it goes on the wire (escaped).
    static func stream(_ deltas: [String]) -> [UInt8] {
        var text =
            "data: {\"type\":\"start\",\"messageId\":\"m1\"}\n\ndata: {\"type\":\"text-start\",\"id\":\"t1\"}\n\n"
        for delta in deltas { text += "data: {\"type\":\"text-delta\",\"id\":\"t1\",\"delta\":\"\(delta)\"}\n\n" }
        text += "data: {\"type\":\"text-end\",\"id\":\"t1\"}\n\n"
        text += "data: {\"type\":\"finish\",\"finishReason\":\"stop\"}\n\ndata: [DONE]\n\n"
        return Array(text.utf8)
    }

    static let arguments = ["replay", "--format", "ui-message-stream", "--output", "message", "--json", "-"]

    @Test func aLongReplysJSONIsTheLibrarysJSONText() async throws {
        // Every escape the writer makes (quote, backslash, newline, return, tab, the other control
        // bytes as \u00xx) and multibyte text, in deltas of irregular length, so that escapes and
        // multibyte characters fall on both sides of the writer's 64 KiB windows.
        let pieces = [
            #"\""#, #"\\"#, #"\n"#, #"\r"#, #"\t"#, #"\u0001"#, #"\b"#, #"\f"#, #"\u001f"#, "é", "日本", "😀", "abc", " ",
            "/",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let deltas = (0..<4000).map { _ in (0...next(80)).map { _ in pieces[next(pieces.count)] }.joined() }
        let bytes = Self.stream(deltas)
        var decoder = AnyMessageDecoder(format: .uiMessageStream)
        try decoder.feed(bytes)
        let expected = Array(decoder.finish().map { $0.jsonValue.jsonText + "\n" }.joined().utf8)
        #expect(expected.count > 4 << 16, "the reply is not longer than a few of the writer's windows")

        let run = try await ChildProcess.run(Self.arguments, stdin: bytes)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.count == expected.count)
        #expect(run.output == expected, "the printed JSON differs from the message's jsonText")
    }

    @Test func aShortReplysJSONIsTheLibrarysJSONTextToo() async throws {
        let bytes = Self.stream(["Hello", #", \"world\"\n"#])
        var decoder = AnyMessageDecoder(format: .uiMessageStream)
        try decoder.feed(bytes)
        let expected = decoder.finish().map { $0.jsonValue.jsonText + "\n" }.joined()
        let run = try await ChildProcess.run(Self.arguments, stdin: bytes)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == expected)
    }

    @Test func aLongReplyAsJSONIsNotCopiedToBePrinted() async throws {
        // 32 MiB of text in 64 KiB deltas: `jsonText + "\n"` held the JSON's bytes, its string and
        // the line beside the message; written in pieces, the peak is the message's own (as
        // without --json, which ReplayStreamingTests bounds the same way).
        try await ReplayStreamingTests.expectPeakFollowsTheText(Self.arguments, mebibytes: 32)
    }
}
