import TestSupport
import Testing

@testable import ChatStreamJSON

/// Where the value starting at byte 0 of `pieces` ends (stream offset just past it), `nil` if it
/// has not ended when the pieces run out; with whether end of input would complete it.
private func end(
    of pieces: [[UInt8]], maxDepth: Int = 512, maxValueBytes: Int = 1 << 20
) throws -> (end: Int?, endsAtEndOfInput: Bool) {
    var scanner = JSONValueScanner(maxDepth: maxDepth, maxValueBytes: maxValueBytes)
    var offset = 0
    var started = false
    for piece in pieces {
        let result: Int? = try piece.withUnsafeBytes { bytes in
            bytes.isEmpty ? nil : try scanner.scan(bytes, from: 0, streamOffset: offset)
        }
        if !piece.isEmpty { started = true }
        if let result { return (offset + result, false) }
        offset += piece.count
    }
    return (nil, started && scanner.endsAtEndOfInput)
}

private func scanError(_ text: String, maxDepth: Int = 512, maxValueBytes: Int = 1 << 20) -> [JSONValueScanner.Failure?]
{
    Chunkings.all(of: Array(text.utf8)).map { chunking -> JSONValueScanner.Failure? in
        do {
            _ = try end(of: chunking.pieces, maxDepth: maxDepth, maxValueBytes: maxValueBytes)
            return nil
        } catch {
            return error as? JSONValueScanner.Failure
        }
    }
}

@Suite("JSONValueScanner")
struct JSONValueScannerTests {
    @Test(arguments: [
        (#""a\"]\\"rest"#, 8),
        (#"[1,"]",{"a":"}"}]x"#, 17),
        (#"{"k":"\\\"{[","l":[[],{}]} {}"#, 26),
        ("123 ", 3),
        ("-1.5e3,", 6),
        ("true]", 4),
        ("null{", 4),
        (#"12"x""#, 2),
        ("[[[[]]]]", 8),
        (#""""#, 2),
    ])
    func valueEndIsFoundForEveryChunking(text: String, expected: Int) throws {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            #expect(try end(of: chunking.pieces).end == expected, "\(chunking)")
        }
    }

    @Test(arguments: ["123", "-0.5", "true", "nul"])
    func topLevelScalarEndsAtEndOfInput(text: String) throws {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let result = try end(of: chunking.pieces)
            #expect(result.end == nil && result.endsAtEndOfInput, "\(chunking)")
        }
    }

    @Test(arguments: [#""abc"#, #"{"a":"#, "[1,2", #""a\""#])
    func unfinishedStringsAndContainersDoNotEndAtEndOfInput(text: String) throws {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let result = try end(of: chunking.pieces)
            #expect(result.end == nil && !result.endsAtEndOfInput, "\(chunking)")
        }
    }

    @Test(arguments: ["}", "]", ",", ":", "x", " "])
    func byteThatCannotStartAValueIsRejected(text: String) {
        for error in scanError(text) {
            #expect(error?.kind == .unexpectedByte)
            #expect(error?.byteOffset == 0)
        }
    }

    @Test func depthLimitStopsAtTheFirstByteTooDeep() {
        #expect(scanError("[[[]]]", maxDepth: 3).allSatisfy { $0 == nil })
        for error in scanError(#"[{"a":[[1]]}]"#, maxDepth: 3) {
            #expect(error?.kind == .depthLimitExceeded)
            #expect(error?.byteOffset == 7)
        }
        // Brackets inside strings do not count.
        #expect(scanError(#"[["[[[[{{{{"]]"#, maxDepth: 2).allSatisfy { $0 == nil })
    }

    @Test func sizeLimitStopsAtTheFirstByteBeyondIt() throws {
        #expect(scanError(#""abc""#, maxValueBytes: 5).allSatisfy { $0 == nil })
        #expect(scanError("12345 ", maxValueBytes: 5).allSatisfy { $0 == nil })
        for text in [#""abcd""#, "123456", "[1,22]"] {
            for error in scanError(text, maxValueBytes: 5) {
                #expect(error?.kind == .valueTooLarge, "\(text)")
                #expect(error?.byteOffset == 5, "\(text)")
            }
        }
    }

    @Test func scannerIsReusableAfterAValueEnds() throws {
        var scanner = JSONValueScanner(maxDepth: 8, maxValueBytes: 100)
        let bytes = Array(#"{"a":1}"bc"[2]"#.utf8)
        var ends: [Int] = []
        try bytes.withUnsafeBytes { buffer in
            var start = 0
            while start < buffer.count, let end = try scanner.scan(buffer, from: start, streamOffset: 0) {
                ends.append(end)
                start = end
            }
        }
        #expect(ends == [7, 11, 14])
        #expect(!scanner.isScanning)
    }

    /// The word-at-a-time search against a byte loop, on bytes chosen to trip the bit trick:
    /// quotes and backslashes with their neighbours (0x21, 0x23, 0x5B, 0x5D), 0x00 and 0x01
    /// (borrows), the same values with the high bit set, and anything else.
    @Test func wordSearchFindsTheFirstQuoteOrBackslashAsAByteLoopDoes() {
        var random = SplitMix64(seed: 7)
        let tricky: [UInt8] = [0x22, 0x5C, 0x21, 0x23, 0x5B, 0x5D, 0x00, 0x01, 0xA2, 0xDC, 0x80, 0xFF]
        for round in 0..<20_000 {
            let count = Int(random.next() % 40)
            let bytes: [UInt8] = (0..<count).map { _ in
                random.next() % 3 == 0
                    ? tricky[Int(random.next() % UInt64(tricky.count))] : UInt8(truncatingIfNeeded: random.next())
            }
            let start = count == 0 ? 0 : Int(random.next() % UInt64(count + 1))
            let stop = start + Int(random.next() % UInt64(count - start + 1))
            let expected = bytes[start..<stop].firstIndex { $0 == 0x22 || $0 == 0x5C } ?? stop
            let found = bytes.withUnsafeBytes { buffer in
                JSONValueScanner.firstQuoteOrBackslash(
                    buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, from: start, to: stop)
            }
            if found != expected {
                Issue.record("round \(round): \(bytes) from \(start) to \(stop): found \(found), expected \(expected)")
                return
            }
        }
    }

    /// Strings long enough for the word search, with the closing quote and escapes at every
    /// position in a word, end where they end at every chunking.
    @Test func longStringsEndAtTheirClosingQuoteWhereverItFallsInAWord() throws {
        for length in 0..<26 {
            for escape in [nil, #"\""#, #"\\"#, #"\u0022"#] {
                for at in Set([0, length / 2, length]) {
                    var content = String(repeating: "a", count: length)
                    if let escape {
                        content.insert(contentsOf: escape, at: content.index(content.startIndex, offsetBy: at))
                    }
                    let value = "\"" + content + "\""
                    for chunking in Chunkings.all(of: Array((value + #",["x"]"#).utf8)) {
                        let result = try end(of: chunking.pieces)
                        #expect(result.end == value.utf8.count, "\(value) \(chunking.name)")
                    }
                    let nested = "[{\"k\":" + value + "}]"
                    for chunking in Chunkings.all(of: Array((nested + "]").utf8)) {
                        #expect(try end(of: chunking.pieces).end == nested.utf8.count, "\(nested) \(chunking.name)")
                    }
                }
            }
        }
    }
}
