import ChatStreamFraming
import TestSupport
import Testing

@Suite("NDJSONDecoder")
struct NDJSONDecoderTests {
    /// Decodes under every chunking, checking they agree, and returns the lines.
    private func everyWay(_ input: [UInt8], configuration: NDJSONDecoder.Configuration = .default) throws
        -> [NDJSONLine]
    {
        let chunkings = Chunkings.all(of: input)
        let reference = try decodeNDJSON(chunkings[0].pieces, configuration: configuration)
        for chunking in chunkings.dropFirst() {
            #expect(
                try decodeNDJSON(chunking.pieces, configuration: configuration) == reference, "chunking \(chunking)")
        }
        return reference
    }

    @Test func oneValuePerLineWithOffsets() throws {
        let lines = try everyWay(bytes("{\"a\":1}\n{\"b\":2}\n"))
        #expect(
            lines == [
                NDJSONLine(bytes: bytes("{\"a\":1}"), byteOffset: 0),
                NDJSONLine(bytes: bytes("{\"b\":2}"), byteOffset: 8),
            ])
    }

    @Test func crlfIsTolerated() throws {
        let lines = try everyWay(bytes("{\"a\":1}\r\n{\"b\":2}\r\n"))
        #expect(lines.map(\.bytes) == [bytes("{\"a\":1}"), bytes("{\"b\":2}")])
    }

    @Test func blankAndWhitespaceOnlyLinesAreSkipped() throws {
        let lines = try everyWay(bytes("\n  \t\n{\"a\":1}\n\r\n \r\n{\"b\":2}\n\n"))
        #expect(lines.map(\.bytes) == [bytes("{\"a\":1}"), bytes("{\"b\":2}")])
        #expect(lines.map(\.byteOffset) == [5, 18])
    }

    @Test func finalLineWithoutNewlineIsDeliveredAtFinish() throws {
        var decoder = NDJSONDecoder()
        #expect(try decoder.feed(bytes("{\"a\":1}\n{\"done\":true}")).map(\.bytes) == [bytes("{\"a\":1}")])
        #expect(try decoder.finish().map(\.bytes) == [bytes("{\"done\":true}")])
        #expect(
            try everyWay(bytes("{\"a\":1}\n{\"done\":true}\r")).map(\.bytes) == [
                bytes("{\"a\":1}"), bytes("{\"done\":true}"),
            ])
        #expect(try everyWay(bytes("{\"a\":1}\n  ")).count == 1)
    }

    @Test func lineLongerThanTheLimitFailsWithItsOffset() throws {
        let input = bytes("{}\n0123456789\n")
        for chunking in Chunkings.all(of: input) {
            let error = framingError { _ = try decodeNDJSON(chunking.pieces, configuration: .init(maxLineBytes: 8)) }
            #expect(error?.kind == .lineTooLong, "chunking \(chunking)")
            #expect(error?.byteOffset == 3 + 8, "chunking \(chunking)")
        }
    }

    @Test func lineAtTheLimitIsAccepted() throws {
        #expect(try everyWay(bytes("12345678\n"), configuration: .init(maxLineBytes: 8)).count == 1)
    }
}
