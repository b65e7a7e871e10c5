// The dialect of ChatStream.docc/WritingADialect.md runs as the article says: two lines of text
// become one text, a line without `text` is counted as unknown, and a JSON error inside a line is
// a malformed-stream error at a byte of that line, counted from the stream's start.

import ChatStream
import Testing

@Suite struct ReadmeDialectExampleTests {
    @Test func theExampleDialectGivesItsLinesAsOneText() throws {
        let run = try writingADialectExample()
        #expect(run.text == "onetwo")
        #expect(run.unknownUnits == 1)
        #expect(run.events == [.textStart(id: "text-0"), .textDelta(id: "text-0", delta: "a")])
        let error = try #require(run.malformed)
        #expect(error.kind == .malformed)
        // The third line, `{"text":}`, starts at byte 21 (after 8 + 13 bytes) and is 9 bytes long.
        #expect((21...30).contains(error.byteOffset ?? -1), "\(error)")
    }
}
