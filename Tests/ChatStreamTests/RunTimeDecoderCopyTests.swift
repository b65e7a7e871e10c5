// The run-time decoders keep their dialect's decoder in a box (RegisteredDialect.swift); they
// are still values: a copy taken mid-stream decodes on its own, and neither sees the other's bytes.

import Foundation
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct RunTimeDecoderCopyTests {
    let fixture = Array(
        try! Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/ui-message-stream/tool-round-trip.sse")))

    @Test(arguments: [StreamFormat.uiMessageStream, nil])
    func aCopyOfAnAnyMessageDecoderDecodesOnItsOwn(format: StreamFormat?) throws {
        let half = fixture.count / 2
        var whole = AnyMessageDecoder(format: format)
        try whole.feed(fixture)
        let expected = whole.finish()

        var original = AnyMessageDecoder(format: format)
        try original.feed(fixture[..<half])
        var copy = original
        // The copy gets the rest; the original is cut where the copy was taken.
        try copy.feed(fixture[half...])
        #expect(copy.finish() == expected)
        let cut = original.finish()
        #expect(cut[0].error?.code == "STREAM_TRUNCATED")
        #expect(cut[0].text.count < expected[0].text.count || expected[0].text.isEmpty)
        #expect(original.failure?.kind == .truncated)
        #expect(copy.failure == nil)
    }

    @Test(arguments: [StreamFormat.uiMessageStream, nil])
    func aCopyOfAnAnyStreamDecoderDecodesOnItsOwn(format: StreamFormat?) throws {
        let half = fixture.count / 2
        var whole = AnyStreamDecoder(format: format)
        let expected = try whole.feed(fixture) + whole.finish()

        var original = AnyStreamDecoder(format: format)
        let first = try original.feed(fixture[..<half])
        var copy = original
        let rest = try copy.feed(fixture[half...]) + copy.finish()
        #expect(first + rest == expected)
        // The original never saw the second half: finishing it is a truncation.
        #expect(throws: StreamError.self) { try original.finish() }
    }
}
