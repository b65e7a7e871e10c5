@_spi(Dialects) import ChatStreamFraming
import TestSupport
import Testing

@Suite("ServerSentEventDecoder")
struct ServerSentEventDecoderTests {
    @Test func splitCRLFAcrossChunksIsOneLineBreak() throws {
        let pieces = [bytes("data: a\r"), bytes("\ndata: b\r"), bytes("\n\r"), bytes("\n")]
        let outcome = try decodeSSE(pieces)
        #expect(outcome.events == [ServerSentEvent(data: "a\nb")])
        #expect(try decodeSSEEveryWay(pieces.flatMap { $0 }).events == [ServerSentEvent(data: "a\nb")])
    }

    @Test func oneStepDataBlocksAgreeWithTheLinePath() throws {
        // Whole, most blocks below take the one-step path (a `data:` line and an empty line, both
        // ended by LF); one byte at a time, every line goes through the line path. Every field,
        // offsets included, must agree (decodeSSEEveryWay compares every chunking).
        let text =
            "data: a\n\ndata:b\n\ndata: \n\ndata:\n\nid: 5\ndata: c\n\ndata: d\n\nevent: e\ndata: f\n\n"
            + "data: g\r\n\r\ndata: h\n\rdata: i\n\n: note\ndata: j\n\nretry: 10\ndata: k\n\ndata: l\n\n"
        let outcome = try decodeSSEEveryWay(bytes(text))
        #expect(
            outcome.events == [
                ServerSentEvent(data: "a"), ServerSentEvent(data: "b"), ServerSentEvent(data: ""),
                ServerSentEvent(data: ""), ServerSentEvent(data: "c", id: "5"), ServerSentEvent(data: "d", id: "5"),
                ServerSentEvent(type: "e", data: "f", id: "5"), ServerSentEvent(data: "g", id: "5"),
                ServerSentEvent(data: "h", id: "5"), ServerSentEvent(data: "i", id: "5"),
                ServerSentEvent(data: "j", id: "5"), ServerSentEvent(data: "k", id: "5", retry: 10),
                ServerSentEvent(data: "l", id: "5"),
            ])
        #expect(outcome.offsets.prefix(4) == [0, 9, 17, 25])
        #expect(outcome.dataOffsets.prefix(4) == [6, 14, 23, 30])
    }

    @Test func oneStepTypedBlocksAgreeWithTheLinePathAtEveryCut() throws {
        // `event:` + `data:` + an empty line also take the one-step path (Anthropic, OpenAI
        // Responses); the shapes around it (an empty or unspaced type, CR endings, an event line
        // with no data line after it, two event lines) go the line path. Cut in two at every
        // byte, so that a piece ends inside each line of each block, the events and offsets must
        // be those of one byte at a time, where every line goes through the line path.
        let text =
            "event: content_block_delta\ndata: {\"a\":1}\n\nevent:x\ndata:2\n\nevent:\ndata: 3\n\n"
            + "event: y\r\ndata: 4\n\nevent: z\ndata: 5\r\n\r\nevent: w\n\nevent: v\nid: 7\ndata: 6\n\n"
            + "event: a\nevent: b\ndata: 7\n\nevent: c\ndata: 8\ndata: 9\n\nevent: d\ndata: 10\n\n"
        let input = bytes(text)
        let reference = try decodeSSE(input.map { [$0] })
        #expect(
            reference.events.map(\.type) == ["content_block_delta", "x", "message", "y", "z", "v", "b", "c", "d"])
        #expect(reference.events.map(\.data) == [#"{"a":1}"#, "2", "3", "4", "5", "6", "7", "8\n9", "10"])
        #expect(reference.offsets.prefix(3) == [0, 42, 58])
        #expect(reference.dataOffsets.prefix(3) == [33, 55, 71])
        for cut in 0...input.count {
            let outcome = try decodeSSE([Array(input[..<cut]), Array(input[cut...])])
            #expect(outcome == reference, "cut at \(cut)")
        }
    }

    @Test func loneCRAndLFEachEndALine() throws {
        let outcome = try decodeSSEEveryWay(bytes("data: a\rdata: b\n\rdata: c\r\r"))
        #expect(outcome.events == [ServerSentEvent(data: "a\nb"), ServerSentEvent(data: "c")])
    }

    @Test func byteOrderMarkIsSkippedOnlyAtStreamStart() throws {
        let bom = "\u{FEFF}"
        let outcome = try decodeSSEEveryWay(bytes(bom + "data: a\n\n" + bom + "data: b\n\ndata: " + bom + "c\n\n"))
        #expect(outcome.events == [ServerSentEvent(data: "a"), ServerSentEvent(data: bom + "c")])
        #expect(outcome.offsets == [3, 24])
    }

    @Test func idContainingNULIsIgnored() throws {
        let outcome = try decodeSSEEveryWay(bytes("id: 1\ndata: a\n\nid: x\u{0}y\ndata: b\n\n"))
        #expect(outcome.events == [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")])
    }

    @Test func blockWithoutDataDispatchesNothingButUpdatesLastEventID() throws {
        let outcome = try decodeSSEEveryWay(bytes("id: 7\nevent: skipped\n\ndata: x\n\n"))
        #expect(outcome.events == [ServerSentEvent(data: "x", id: "7")])
        var decoder = ServerSentEventDecoder()
        #expect(try decoder.feed(bytes("id: 9\n\n")).isEmpty)
        #expect(decoder.lastEventID == "9")
    }

    @Test func emptyIDResetsTheLastEventID() throws {
        let outcome = try decodeSSEEveryWay(bytes("id: 1\ndata: a\n\nid\ndata: b\n\ndata: c\n\n"))
        #expect(outcome.events.map(\.id) == ["1", nil, nil])
    }

    @Test func eventTypeDefaultsToMessageAndEmptyEventFieldKeepsIt() throws {
        let outcome = try decodeSSEEveryWay(bytes("event: add\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\n"))
        #expect(outcome.events.map(\.type) == ["add", "message", "message"])
    }

    @Test func retryCountsOnlyWhenAllASCIIDigits() throws {
        let input =
            "retry: 1500\ndata: a\n\nretry: 12a\ndata: b\n\nretry:\ndata: c\n\nretry: 99999999999999999999999\ndata: d\n\n"
        let outcome = try decodeSSEEveryWay(bytes(input))
        #expect(outcome.events.map(\.retry) == [1500, nil, nil, nil])
        #expect(outcome.reconnectionTime == 1500)
    }

    @Test func byteOffsetIsTheBlocksFirstFieldLine() throws {
        let outcome = try decodeSSEEveryWay(bytes("data: a\n\n: c\nevent: t\ndata: b\n\n\n\nid: 1\ndata: c\n\n"))
        #expect(outcome.offsets == [0, 13, 33])
    }

    @Test func finishReportsADroppedBlock() throws {
        let outcome = try decodeSSEEveryWay(bytes("data: a\n\nid: 2\ndata: b\n"))
        #expect(outcome.events == [ServerSentEvent(data: "a")])
        #expect(outcome.end == StreamEnd(totalBytes: 23, droppedBytes: 14, droppedFromOffset: 9))
    }

    @Test func finishReportsADroppedPartialLine() throws {
        let outcome = try decodeSSEEveryWay(bytes("data: a\n\nda"))
        #expect(outcome.end == StreamEnd(totalBytes: 11, droppedBytes: 2, droppedFromOffset: 9))
        #expect(outcome.end?.isTruncated == true)
    }

    @Test func cleanEndIsNotTruncatedEvenAfterAComment() throws {
        let outcome = try decodeSSEEveryWay(bytes("data: a\n\n: keep-alive\n"))
        #expect(outcome.end == StreamEnd(totalBytes: 22))
        #expect(outcome.end?.isTruncated == false)
    }

    @Test func finishStartsANewStreamKeepingLastEventIDAndRetry() throws {
        var decoder = ServerSentEventDecoder()
        _ = try decoder.feed(bytes("\u{FEFF}id: 5\nretry: 10\ndata: a\n\ndata: cut"))
        #expect(try decoder.finish { _ in }.isTruncated)
        let events = try decoder.feed(bytes("\u{FEFF}data: b\n\n"))
        #expect(events == [ServerSentEvent(data: "b", id: "5")])
        #expect(decoder.reconnectionTime == 10)
        #expect(decoder.byteCount == 12)
    }

    @Test func visitorSeesInputBytesWhenTheEventLiesWithinIt() throws {
        var decoder = ServerSentEventDecoder()
        let input = bytes("event: t\ndata: hello\n\n")
        var seen = 0
        try input.withUnsafeBytes { raw in
            try decoder.feed(raw) { event in
                seen += 1
                let start = raw.baseAddress!
                let data = event.data.baseAddress!
                #expect(data >= start && data + event.data.count <= start + raw.count)
                #expect(Array(event.data) == bytes("hello"))
                #expect(event.typeIs("t"))
                #expect(!event.typeIs("message"))
            }
        }
        #expect(seen == 1)
    }

    @Test func dataLeftInInputIsCopiedBeforeFeedReturns() throws {
        var decoder = ServerSentEventDecoder()
        var input = bytes("data: first\n")
        _ = try decoder.feed(input)
        _ = input.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0x21) }  // scribble on it
        #expect(try decoder.feed(bytes("data: second\n\n")) == [ServerSentEvent(data: "first\nsecond")])
    }

    @Test func anEventTypeKeptFromTheInputIsCopiedBeforeTheCallReturns() throws {
        // The `event` value, like a lone data line, is read in place while the block is in the
        // input; a block left pending at the end of `feed` must own a copy of it.
        var decoder = ServerSentEventDecoder()
        var input = bytes("event: content_block_delta\n")
        _ = try decoder.feed(input)
        _ = input.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0x21) }  // scribble on it
        #expect(
            try decoder.feed(bytes("data: x\n\n")) == [ServerSentEvent(type: "content_block_delta", data: "x")])
        // In one piece, and with the type's line cut across two pieces.
        #expect(try decoder.feed(bytes("event: a\ndata: 1\n\n")) == [ServerSentEvent(type: "a", data: "1")])
        _ = try decoder.feed(bytes("event: pi"))
        #expect(try decoder.feed(bytes("ng\ndata: 2\n\n")) == [ServerSentEvent(type: "ping", data: "2")])
        // An empty value is the default type; a later `event` line replaces an earlier one.
        #expect(try decoder.feed(bytes("event:\ndata: 3\n\n")) == [ServerSentEvent(data: "3")])
        #expect(try decoder.feed(bytes("event: a\nevent: b\ndata: 4\n\n")) == [ServerSentEvent(type: "b", data: "4")])
        _ = try decoder.feed(bytes("event: a\n"))
        #expect(try decoder.feed(bytes("event:\ndata: 5\n\n")) == [ServerSentEvent(data: "5")])
    }

    @Test func visitorAndOwnedAPIsAgree() throws {
        let input = bytes("event: a\ndata: 1\nid: z\n\n: c\ndata: 2\ndata: 3\n\nretry: 5\ndata: 4\n\n")
        for chunking in Chunkings.all(of: input) {
            #expect(try decodeSSEOwned(chunking.pieces) == decodeSSE(chunking.pieces).events, "chunking \(chunking)")
        }
    }

    @Test func lineLongerThanTheLimitFailsWithItsOffset() throws {
        let configuration = ServerSentEventDecoder.Configuration(maxLineBytes: 16)
        let input = bytes("data: ok\n\ndata: 0123456789abcdef\n\n")
        for chunking in Chunkings.all(of: input) {
            let error = framingError { _ = try decodeSSE(chunking.pieces, configuration: configuration) }
            #expect(error?.kind == .lineTooLong, "chunking \(chunking)")
            #expect(error?.byteOffset == 10 + 16, "chunking \(chunking)")
        }
        #expect(try decodeSSE([bytes("data: 0123456789\n\n")], configuration: configuration).events.count == 1)
    }

    @Test func eventLargerThanTheLimitFailsWithItsOffset() throws {
        let configuration = ServerSentEventDecoder.Configuration(maxEventBytes: 8)
        let input = bytes("data: 12345\ndata: 678\n\n")
        for chunking in Chunkings.all(of: input) {
            let error = framingError { _ = try decodeSSE(chunking.pieces, configuration: configuration) }
            #expect(error?.kind == .eventTooLarge, "chunking \(chunking)")
            #expect(error?.byteOffset == 20, "chunking \(chunking)")
        }
        #expect(try decodeSSE([bytes("data: 1234\ndata: 567\n\n")], configuration: configuration).events.count == 1)
    }

    @Test func endlessLineFailsFastWithBoundedMemory() throws {
        let limit = 1 << 20
        var decoder = ServerSentEventDecoder(configuration: .init(maxLineBytes: limit))
        let chunk = [UInt8](repeating: 0x61, count: 64 << 10)
        var fed = 0
        var caught: FramingError?
        while fed < 64 << 20 {
            do {
                try chunk.withUnsafeBytes { try decoder.feed($0) { _ in Issue.record("no event expected") } }
            } catch let error as FramingError {
                caught = error
                break
            }
            fed += chunk.count
            #expect(decoder.bufferedByteCount <= limit)
        }
        #expect(caught?.kind == .lineTooLong)
        #expect(caught?.byteOffset == limit)
        #expect(fed <= limit)
        // A failed decoder keeps failing.
        #expect(framingError { _ = try decoder.feed(bytes("\n\n")) } == caught)
    }

    @Test func endlessLineInOneHugePieceFailsWithoutBuffering() throws {
        var decoder = ServerSentEventDecoder(configuration: .init(maxLineBytes: 1 << 10))
        let piece = [UInt8](repeating: 0x61, count: 8 << 20)
        let error = framingError { _ = try decoder.feed(piece) }
        #expect(error?.kind == .lineTooLong)
        #expect(error?.byteOffset == 1 << 10)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func invalidUTF8IsRepairedInOwnedEvents() throws {
        let outcome = try decodeSSEEveryWay([0x64, 0x61, 0x74, 0x61, 0x3A, 0xFF, 0x41, 0x0A, 0x0A])
        #expect(outcome.events == [ServerSentEvent(data: "\u{FFFD}A")])
    }
}
