// CheckedUTF8, the text a lent delta carries: every public way to read it (spans, appends, the
// copied string) gives exactly the owned event's text, at every chunking, with escapes and
// characters of every UTF-8 length; `init(validating:)` refuses ill-formed bytes.

import ChatStream
import ChatStreamFraming
import TestSupport
import Testing

@Suite("CheckedUTF8", .blockingAllowed)
struct CheckedUTF8Tests {
    /// Deltas with escapes, a surrogate pair, two-, three- and four-byte characters.
    private static let stream = Array(
        #"""
        data: {"type":"text-start","id":"t"}

        data: {"type":"text-delta","id":"t","delta":"Hé\"llo\n"}

        data: {"type":"text-delta","id":"t","delta":"\u00e9 \ud83d\ude00 中"}

        data: {"type":"text-delta","id":"t","delta":""}

        data: {"type":"text-delta","id":"t","delta":"𝄞 plain"}

        data: {"type":"text-end","id":"t"}


        """#.utf8)

    /// Every way of reading each lent text delta, gathered.
    private struct Readings: Equatable, StreamEventSink {
        var appendedString = ""
        var appendedBytes: [UInt8] = []
        var spanBytes: [UInt8] = []
        var utf8SpanStrings = ""
        var strings = ""
        var counts: [Int] = []
        var empties = 0

        mutating func textDelta(id: String, delta: CheckedUTF8) {
            delta.append(to: &appendedString)
            delta.append(to: &appendedBytes)
            spanBytes += delta.withSpan { span in span.withUnsafeBytes { Array($0) } }
            utf8SpanStrings += delta.withUTF8Span { String(copying: $0) }
            strings += delta.string
            counts.append(delta.count)
            if delta.isEmpty { empties += 1 }
        }

        mutating func event(_ event: StreamEvent) {}
    }

    @Test func everyReadingOfALentDeltaIsTheOwnedText() throws {
        var ownedText = ""
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        for case .textDelta(_, let delta) in try decoder.feed(Self.stream) { ownedText += delta }
        #expect(ownedText == "Hé\"llo\né 😀 中𝄞 plain")
        for chunking in Chunkings.all(of: Self.stream) {
            var decoder = StreamDecoder<UIMessageStreamDialect>()
            var readings = Readings()
            for piece in chunking.pieces { try decoder.feed(piece, into: &readings) }
            #expect(readings.appendedString == ownedText, "chunking \(chunking)")
            #expect(readings.appendedBytes == Array(ownedText.utf8))
            #expect(readings.spanBytes == Array(ownedText.utf8))
            #expect(readings.utf8SpanStrings == ownedText)
            #expect(readings.strings == ownedText)
            #expect(readings.counts.reduce(0, +) == ownedText.utf8.count && readings.counts.count == 4)
            #expect(readings.empties == 1)
        }
    }

    @Test func validatingRefusesIllFormedUTF8() {
        let good = Array("ok é".utf8)
        let bad: [[UInt8]] = [[0xC3], [0xFF], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x82]]
        good.withUnsafeBytes { #expect(CheckedUTF8(validating: $0)?.string == "ok é") }
        for bytes in bad {
            bytes.withUnsafeBytes { #expect(CheckedUTF8(validating: $0) == nil, "\(bytes)") }
        }
    }
}
