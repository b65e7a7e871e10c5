@_spi(Dialects) import ChatStreamFraming
import TestSupport
import Testing

@Suite("DataStreamV4Decoder")
struct DataStreamV4DecoderTests {
    private func everyWay(_ input: [UInt8]) throws -> [DataStreamV4Part] {
        let chunkings = Chunkings.all(of: input)
        let reference = try decodeV4(chunkings[0].pieces)
        for chunking in chunkings.dropFirst() {
            #expect(try decodeV4(chunking.pieces) == reference, "chunking \(chunking)")
        }
        return reference
    }

    private func part(_ code: String, _ payload: String, _ offset: Int) -> DataStreamV4Part {
        DataStreamV4Part(code: code, payload: bytes(payload), byteOffset: offset)
    }

    @Test func partsSplitAtTheFirstColon() throws {
        let input =
            "f:{\"messageId\":\"m1\"}\n0:\"Hello\"\n0:\" a:b\"\n9:{\"toolCallId\":\"c\",\"args\":{}}\nd:{\"finishReason\":\"stop\"}\n"
        #expect(
            try everyWay(bytes(input)) == [
                part("f", "{\"messageId\":\"m1\"}", 0),
                part("0", "\"Hello\"", 21),
                part("0", "\" a:b\"", 31),
                part("9", "{\"toolCallId\":\"c\",\"args\":{}}", 40),
                part("d", "{\"finishReason\":\"stop\"}", 71),
            ])
    }

    @Test func multiCharacterCodesAreKept() throws {
        #expect(try everyWay(bytes("ab:1\n")) == [part("ab", "1", 0)])
    }

    @Test func crlfBlankLinesAndMissingFinalNewline() throws {
        #expect(try everyWay(bytes("\r\n0:\"a\"\r\n\n  \n0:\"b\"")) == [part("0", "\"a\"", 2), part("0", "\"b\"", 13)])
    }

    @Test func lineWithoutColonFailsWithItsOffset() throws {
        for chunking in Chunkings.all(of: bytes("0:\"a\"\nnot a part\n")) {
            let error = framingError { _ = try decodeV4(chunking.pieces) }
            #expect(error?.kind == .malformedLine, "chunking \(chunking)")
            #expect(error?.byteOffset == 6, "chunking \(chunking)")
        }
        let atEnd = framingError { _ = try decodeV4([bytes("0:\"a\"\nbroken")]) }
        #expect(atEnd?.kind == .malformedLine)
        #expect(atEnd?.byteOffset == 6)
    }

    @Test func emptyCodeFails() throws {
        let error = framingError { _ = try decodeV4([bytes(":\"a\"\n")]) }
        #expect(error?.kind == .malformedLine)
        #expect(error?.byteOffset == 0)
        // The code ends at the first colon, even when another follows it (the one-character
        // fast path must not take `:` for a code).
        let doubled = framingError { _ = try decodeV4([bytes("0:\"a\"\n::\"b\"\n")]) }
        #expect(doubled?.kind == .malformedLine)
        #expect(doubled?.byteOffset == 6)
        #expect(try everyWay(bytes("0::1\n")) == [part("0", ":1", 0)])
    }

    @Test func visitorViewMatchesCode() throws {
        var decoder = DataStreamV4Decoder()
        var codes: [Bool] = []
        try bytes("0:\"x\"\ng:\"y\"\n").withUnsafeBytes { raw in
            try decoder.feed(raw) { codes.append($0.codeIs("0")) }
        }
        #expect(codes == [true, false])
    }
}
