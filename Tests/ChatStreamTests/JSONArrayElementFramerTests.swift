@_spi(Dialects) import ChatStreamFraming
import TestSupport
import Testing

@_spi(Dialects) @testable import ChatStream

private struct Framed: Equatable, CustomStringConvertible {
    var elements: [String] = []
    var offsets: [Int] = []
    var description: String { "\(elements) at \(offsets)" }
}

/// Runs `pieces` through an array framer; returns what it delivered, and the error if any.
private func frameArray(
    _ pieces: [[UInt8]], framer: JSONArrayElementFramer = JSONArrayElementFramer()
) -> (Framed, FramingError?) {
    var framer = framer
    var framed = Framed()
    do {
        for piece in pieces {
            try piece.withUnsafeBytes { bytes in
                try framer.feed(bytes) { element, offset in
                    framed.elements.append(String(decoding: element, as: UTF8.self))
                    framed.offsets.append(offset)
                }
            }
        }
        _ = try framer.finish()
        #expect(framer.elementCount == framed.elements.count)
        return (framed, nil)
    } catch {
        return (framed, error as? FramingError)
    }
}

/// Runs `pieces` through a sequence framer, finishing it.
private func frameSequence(
    _ pieces: [[UInt8]], framer: JSONSequenceFramer = JSONSequenceFramer()
) -> (Framed, FramingError?) {
    var framer = framer
    var framed = Framed()
    let record = { (value: UnsafeRawBufferPointer, offset: Int) in
        framed.elements.append(String(decoding: value, as: UTF8.self))
        framed.offsets.append(offset)
    }
    do {
        for piece in pieces {
            try piece.withUnsafeBytes { bytes in try framer.feed(bytes, record) }
        }
        try framer.finish(record)
        #expect(framer.valueCount == framed.elements.count)
        return (framed, nil)
    } catch {
        return (framed, error as? FramingError)
    }
}

private let geminiElements = [
    #"{"candidates":[{"content":{"parts":[{"text":"a ] b , c \" d [ { }"}],"role":"model"}}]}"#,
    #"{"candidates":[{"content":{"parts":[{"text":"\\"}]}}],"usageMetadata":{"promptTokenCount":4}}"#,
    """
    {
      "candidates": [
        {"content": {"parts": [{"text": "pretty, \\"printed\\" ]"}]}, "finishReason": "STOP"}
      ],
      "escapes": "\\\\\\"]"
    }
    """,
]

private let geminiStream = "[" + geminiElements.joined(separator: "\n,\r\n") + "\n]\n"

@Suite("JSONArrayElementFramer", .blockingAllowed)
struct JSONArrayElementFramerTests {
    @Test func geminiArrayIsFramedIntoItsElementsForEveryChunking() {
        let bytes = Array(geminiStream.utf8)
        let first = 1
        let second = first + geminiElements[0].utf8.count + 4
        let third = second + geminiElements[1].utf8.count + 4
        let expected = Framed(elements: geminiElements, offsets: [first, second, third])
        for chunking in Chunkings.all(of: bytes) {
            let (framed, error) = frameArray(chunking.pieces)
            #expect(error == nil, "\(chunking)")
            #expect(framed == expected, "\(chunking)")
        }
    }

    @Test func eachElementIsDeliveredAsSoonAsItsLastByteArrives() throws {
        var framer = JSONArrayElementFramer()
        let first = Array(("[" + geminiElements[0]).utf8)
        // Everything but the closing brace: nothing yet.
        #expect(try framer.feed(Array(first.dropLast())).isEmpty)
        #expect(try framer.feed([UInt8(ascii: "}")]).map(\.bytes) == [Array(geminiElements[0].utf8)])
        #expect(try framer.feed(Array(",\"two\"".utf8)).map(\.bytes) == [Array("\"two\"".utf8)])
        // A scalar has no closing byte: it ends at the byte after it.
        #expect(try framer.feed(Array(", 3".utf8)).isEmpty)
        #expect(try framer.feed(Array("]".utf8)).map(\.bytes) == [Array("3".utf8)])
        #expect(try framer.finish().isEmpty)
    }

    @Test(arguments: ["[]", "  [ \n ]  \n", "\t[\r\n]"])
    func emptyArrayHasNoElements(text: String) {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let (framed, error) = frameArray(chunking.pieces)
            #expect(error == nil && framed.elements.isEmpty, "\(chunking)")
        }
    }

    @Test func scalarElementsEndAtTheirDelimiter() {
        let text = #"[1, "two",true ,null,-3.5e2,[],{},"]"]"#
        let expected = ["1", #""two""#, "true", "null", "-3.5e2", "[]", "{}", #""]""#]
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let (framed, error) = frameArray(chunking.pieces)
            #expect(error == nil, "\(chunking)")
            #expect(framed.elements == expected, "\(chunking)")
        }
    }

    @Test(arguments: [
        (#"{"a":1}"#, FramingError.Kind.expectedArrayStart, 0),
        ("  x[]", .expectedArrayStart, 2),
        ("[1 2]", .unexpectedByte, 3),
        ("[1,,2]", .unexpectedByte, 3),
        ("[1,]", .unexpectedByte, 3),
        ("[}", .unexpectedByte, 1),
        ("[,1]", .unexpectedByte, 1),
        (#"[{"a":1}x]"#, .unexpectedByte, 8),
        ("[1]x", .trailingData, 3),
        ("[1] ]", .trailingData, 4),
        ("[] []", .trailingData, 3),
        ("", .truncated, 0),
        ("  ", .truncated, 2),
        ("[", .truncated, 1),
        (#"[{"a":1},{"b""#, .truncated, 13),
        ("[1,2", .truncated, 4),
        ("[1,", .truncated, 3),
    ])
    func malformedStreamsFailAtTheirOffsetForEveryChunking(text: String, kind: FramingError.Kind, offset: Int) {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let (_, error) = frameArray(chunking.pieces)
            #expect(error?.kind == kind, "\(chunking): \(String(describing: error))")
            #expect(error?.byteOffset == offset, "\(chunking): \(String(describing: error))")
        }
    }

    @Test func truncationSaysHowManyElementsWereDelivered() throws {
        var framer = JSONArrayElementFramer()
        #expect(try framer.feed(Array(#"[{"a":1},{"b":2},{"c""#.utf8)).count == 2)
        do {
            _ = try framer.finish()
            Issue.record("expected truncation")
        } catch let error as FramingError {
            #expect(error.kind == .truncated)
            #expect(error.message.contains("after 2 complete elements"))
            #expect(error.message.contains("starts at byte 17"))
        }
    }

    @Test func afterAnErrorEveryCallThrowsTheSameError() throws {
        var framer = JSONArrayElementFramer()
        var first: FramingError?
        do { _ = try framer.feed(Array("[1 x".utf8)) } catch { first = error as? FramingError }
        #expect(first?.kind == .unexpectedByte)
        #expect(throws: first!) { _ = try framer.feed(Array("]".utf8)) }
        #expect(throws: first!) { try framer.finish() }
    }

    @Test func anErrorThrownByTheCallbackStopsTheFramer() throws {
        struct Stop: Error, Equatable {}
        var framer = JSONArrayElementFramer()
        let bytes = Array("[1,2,3]".utf8)
        #expect(throws: Stop()) {
            try bytes.withUnsafeBytes { try framer.feed($0) { _, _ in throw Stop() } }
        }
        #expect(throws: Stop()) { try framer.finish() }
    }

    @Test func millionOpenBracketsFailAtTheDepthLimitWithBoundedMemory() throws {
        var framer = JSONArrayElementFramer()
        let chunk = [UInt8](repeating: UInt8(ascii: "["), count: 4096)
        var thrown: FramingError?
        var fed = 0
        while fed < 1_000_001 {
            do { _ = try framer.feed(chunk) } catch {
                thrown = error as? FramingError
                break
            }
            fed += chunk.count
        }
        // The array's own `[` is byte 0; the element's 513th `[` is byte 513.
        #expect(thrown?.kind == .depthLimitExceeded)
        #expect(thrown?.byteOffset == 513)
        #expect(framer.carryCapacity <= 16 * 1024)

        // In one piece: nothing is carried at all.
        let whole = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_001)
        let (_, error) = frameArray([whole])
        #expect(error?.kind == .depthLimitExceeded)
        #expect(error?.byteOffset == 513)
    }

    @Test func depthLimitCountsElementNestingOnly() {
        let framer = JSONArrayElementFramer(maxDepth: 2)
        #expect(frameArray([Array("[[[1]],{\"a\":[2]}]".utf8)], framer: framer).1 == nil)
        let (_, error) = frameArray([Array("[[[[1]]]]".utf8)], framer: framer)
        #expect(error?.kind == .depthLimitExceeded)
        #expect(error?.byteOffset == 3)
    }

    @Test func elementLongerThanTheLimitFailsAtTheFirstByteBeyondIt() {
        let framer = JSONArrayElementFramer(maxElementBytes: 10)
        for chunking in Chunkings.all(of: Array("[1234567890, \"12345678\"]".utf8)) {
            let (framed, error) = frameArray(chunking.pieces, framer: framer)
            #expect(error == nil && framed.elements == ["1234567890", "\"12345678\""], "\(chunking)")
        }
        for text in [#"[{"a":"0123456789"}]"#, "[12345678901]"] {
            for chunking in Chunkings.all(of: Array(text.utf8)) {
                let (_, error) = frameArray(chunking.pieces, framer: framer)
                #expect(error?.kind == .valueTooLarge, "\(chunking)")
                #expect(error?.byteOffset == 11, "\(chunking)")
            }
        }
    }

    @Test func tenMegabyteElementInOneKilobyteChunksIsCarriedOnceAndLinearly() throws {
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20)
        let element = Array(#"{"data":""#.utf8) + payload + Array(#"","end":[1,"]"]}"#.utf8)
        let stream = Array("[".utf8) + element + Array("\n]".utf8)
        var framer = JSONArrayElementFramer()
        var delivered: [(count: Int, first: UInt8?, last: UInt8?, offset: Int)] = []
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + 1024)
            try stream[start..<end].withUnsafeBytes { bytes in
                try framer.feed(bytes) { element, offset in
                    delivered.append((element.count, element.first, element.last, offset))
                }
            }
            start = end
        }
        _ = try framer.finish()
        #expect(delivered.count == 1)
        #expect(delivered.first?.count == element.count)
        #expect(delivered.first?.first == UInt8(ascii: "{") && delivered.first?.last == UInt8(ascii: "}"))
        #expect(delivered.first?.offset == 1)
        // Each byte of the element was copied into the carry buffer exactly once.
        #expect(framer.carriedByteCount == element.count)
    }

    @Test func elementsInsideOneChunkAreNotCopied() throws {
        var framer = JSONArrayElementFramer()
        let bytes = Array(geminiStream.utf8)
        var count = 0
        try bytes.withUnsafeBytes { buffer in
            try framer.feed(buffer) { element, _ in
                // The element is a slice of the fed buffer.
                #expect(
                    element.baseAddress! >= buffer.baseAddress!
                        && element.baseAddress! < buffer.baseAddress! + buffer.count)
                count += 1
            }
        }
        #expect(count == 3)
        #expect(framer.carriedByteCount == 0)
    }
}

@Suite("JSONSequenceFramer", .blockingAllowed)
struct JSONSequenceFramerTests {
    @Test func concatenatedValuesAreFramedForEveryChunking() {
        let text = "{\"a\":1}{\"b\":[2,\"}\"]}\n\"s\\\"}\"  123 true[1] -4.5e1\n{}null"
        let expected = [#"{"a":1}"#, #"{"b":[2,"}"]}"#, #""s\"}""#, "123", "true", "[1]", "-4.5e1", "{}", "null"]
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let (framed, error) = frameSequence(chunking.pieces)
            #expect(error == nil, "\(chunking)")
            #expect(framed.elements == expected, "\(chunking)")
            #expect(framed.offsets == [0, 7, 21, 29, 33, 37, 41, 48, 50], "\(chunking)")
        }
    }

    @Test func trailingScalarIsDeliveredByFinish() throws {
        var framer = JSONSequenceFramer()
        #expect(try framer.feed(Array("1 2".utf8)).map(\.bytes) == [Array("1".utf8)])
        let last = try framer.finish()
        #expect(last.map(\.bytes) == [Array("2".utf8)])
        #expect(last.map(\.byteOffset) == [2])
        #expect(framer.valueCount == 2)
    }

    @Test func emptyOrWhitespaceStreamHasNoValues() {
        for text in ["", " \n\t\r "] {
            let (framed, error) = frameSequence([Array(text.utf8)])
            #expect(error == nil && framed.elements.isEmpty)
        }
    }

    @Test(arguments: [
        (#"{"a":1}]"#, FramingError.Kind.unexpectedByte, 7),
        ("1,2", .unexpectedByte, 1),
        (#"{"a":"#, .truncated, 5),
        (#""abc"#, .truncated, 4),
        ("[[[1]]]", .depthLimitExceeded, 2),
    ])
    func malformedSequencesFailAtTheirOffsetForEveryChunking(text: String, kind: FramingError.Kind, offset: Int) {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let (_, error) = frameSequence(chunking.pieces, framer: JSONSequenceFramer(maxDepth: 2))
            #expect(error?.kind == kind, "\(chunking): \(String(describing: error))")
            #expect(error?.byteOffset == offset, "\(chunking): \(String(describing: error))")
        }
    }
}
