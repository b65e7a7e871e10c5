// The framing views lend their buffers as RawSpans: what each accessor lends is exactly the
// field's bytes, at every chunking (a view's bytes may come from the input or the decoder's
// buffer), and the copied strings match.

@_spi(Dialects) import ChatStreamFraming
import TestSupport
import Testing

@Suite("Lent view accessors")
struct LentViewAccessorTests {
    private static func copy(_ span: RawSpan) -> [UInt8] { span.withUnsafeBytes { Array($0) } }

    @Test func serverSentEventViewLendsTypeDataAndLastEventID() throws {
        let input = bytes("id: 7\nevent: délta\ndata: one\ndata: twö\n\n: comment\ndata: {\"a\":1}\n\n")
        for chunking in Chunkings.all(of: input) {
            var decoder = ServerSentEventDecoder()
            var seen: [(type: [UInt8], data: [UInt8], id: [UInt8], strings: [String])] = []
            for piece in chunking.pieces {
                try piece.withUnsafeBytes { raw in
                    try decoder.feed(raw) { view in
                        seen.append(
                            (
                                view.withType(Self.copy), view.withData(Self.copy), view.withLastEventID(Self.copy),
                                [view.typeString, view.dataString, view.lastEventIDString]
                            ))
                    }
                }
            }
            #expect(seen.count == 2, "chunking \(chunking)")
            guard seen.count == 2 else { continue }
            #expect(seen[0].type == bytes("délta") && seen[0].data == bytes("one\ntwö") && seen[0].id == bytes("7"))
            #expect(seen[0].strings == ["délta", "one\ntwö", "7"])
            #expect(seen[1].type == bytes("message") && seen[1].data == bytes("{\"a\":1}") && seen[1].id == bytes("7"))
        }
    }

    @Test func ndjsonLineViewLendsItsBytes() throws {
        let input = bytes("{\"a\":1}\r\n\n{\"b\":\"ü\"}")
        for chunking in Chunkings.all(of: input) {
            var decoder = NDJSONDecoder()
            var lines: [[UInt8]] = []
            var counts: [Int] = []
            let take = { (view: NDJSONLineView) in
                lines.append(view.withBytes(Self.copy))
                counts.append(view.count)
            }
            for piece in chunking.pieces { try piece.withUnsafeBytes { try decoder.feed($0, take) } }
            try decoder.finish(take)
            #expect(lines == [bytes("{\"a\":1}"), bytes("{\"b\":\"ü\"}")], "chunking \(chunking)")
            #expect(counts == lines.map(\.count))
        }
    }

    @Test func dataStreamV4PartViewLendsItsPayload() throws {
        let input = bytes("0:\"hi\"\n9:{\"toolCallId\":\"c\"}\n")
        for chunking in Chunkings.all(of: input) {
            var decoder = DataStreamV4Decoder()
            var parts: [(String, [UInt8])] = []
            for piece in chunking.pieces {
                try piece.withUnsafeBytes { raw in
                    try decoder.feed(raw) { parts.append(($0.codeString, $0.withPayload(Self.copy))) }
                }
            }
            #expect(parts.map(\.0) == ["0", "9"], "chunking \(chunking)")
            #expect(parts.map(\.1) == [bytes("\"hi\""), bytes("{\"toolCallId\":\"c\"}")])
        }
    }
}
