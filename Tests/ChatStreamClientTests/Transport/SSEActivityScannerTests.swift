// SSEActivityScanner: what counts as activity for an event-counting idle timeout, at every chunking.

import Testing

@testable import ChatStreamClient

@Suite("SSEActivityScanner")
struct SSEActivityScannerTests {
    /// Feeds `text` whole, byte by byte, at random chunk sizes and with empty chunks; every way must
    /// count the same, which is returned.
    static func count(_ text: String, keepAlive: String? = nil) -> Int {
        count(bytes: Array(text.utf8), keepAlive: keepAlive)
    }

    /// ``count(_:keepAlive:)`` for bytes that need not be UTF-8.
    static func count(bytes: [UInt8], keepAlive: String? = nil) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        let make = { SSEActivityScanner(keepAliveComment: keepAlive.map { Array($0.utf8) }) }
        var whole = make()
        let expected = whole.feed(bytes)
        var single = make()
        #expect(bytes.reduce(0) { $0 + single.feed([$1]) } == expected, "byte by byte")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            var scanner = make()
            var total = 0
            var offset = 0
            while offset < bytes.count {
                let size = Int.random(in: 0...7, using: &generator)
                total += scanner.feed(Array(bytes[offset..<min(bytes.count, offset + size)]))
                offset += size
            }
            #expect(total == expected, "random chunks of \(text.debugDescription)")
        }
        return expected
    }

    @Test func aDataBlockEndedByABlankLineIsOneEvent() {
        #expect(Self.count("data: {\"type\":\"start\"}\n\n") == 1)
        #expect(Self.count("event: x\ndata: 1\ndata: 2\nid: 3\n\n") == 1)
        #expect(Self.count("data\n\n") == 1)
        #expect(Self.count("data:\n\ndata: a\n\n") == 2)
    }

    @Test func anUnfinishedEventIsNotYetActivity() {
        #expect(Self.count("data: 1\n") == 0)
        #expect(Self.count("data: 1") == 0)
    }

    @Test func commentsAndFieldsAloneAreNotEvents() {
        #expect(Self.count(": keep-alive\n\n: ping\n\n") == 0)
        #expect(Self.count("retry: 1000\n\nid: 4\n\nevent: x\n\n") == 0)
        #expect(Self.count("datax: 1\n\ndat: 1\n\n") == 0)
        #expect(Self.count(String(repeating: ": " + String(repeating: "x", count: 1000) + "\n", count: 50)) == 0)
    }

    @Test func crLfAndCRLFAreEachOneLineBreak() {
        #expect(Self.count("data: 1\r\n\r\n") == 1)
        #expect(Self.count("data: 1\r\rdata: 2\n\ndata: 3\r\n\r\n") == 3)
        // CR then LF is one break, not a blank line: no event until the next break.
        #expect(Self.count("data: 1\r\n") == 0)
    }

    @Test func onlyTheNamedKeepAliveCommentCounts() {
        #expect(Self.count(": ping\n\n:ping\n", keepAlive: "ping") == 2)
        #expect(Self.count(": pingpong\n: pin\n:  ping\n: keep-alive\n", keepAlive: "ping") == 0)
        #expect(Self.count(": ping\n", keepAlive: nil) == 0)
    }

    @Test func aLeadingByteOrderMarkIsNotPartOfTheFirstField() {
        #expect(Self.count("\u{FEFF}data: 1\n\n") == 1)
        #expect(Self.count("\u{FEFF}: ping\n", keepAlive: "ping") == 1)
        // Only at the very start; elsewhere it is content (a field named "\u{FEFF}data").
        #expect(Self.count("data: 1\n\n\u{FEFF}data: 2\n\n") == 1)
        // A partial mark is content too.
        #expect(Self.count(bytes: [0xEF, 0xBB] + Array("data: 1\n\n".utf8)) == 0)
    }

    @Test func aLineOfAnyLengthKeepsMemoryConstant() {
        var scanner = SSEActivityScanner(keepAliveComment: nil)
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 16)
        #expect(scanner.feed(Array("data: ".utf8)) == 0)
        for _ in 0..<64 { #expect(scanner.feed(piece) == 0) }  // a 4 MiB line
        #expect(scanner.feed([0x0A, 0x0A]) == 1)
    }
}
