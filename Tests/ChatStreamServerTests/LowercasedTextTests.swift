// The store's lower-case search forms take a fast path for ASCII text (LowercasedText.swift); they
// must equal `lowercased()` for every text, ASCII or not.

import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Lower-case search text")
struct LowercasedTextTests {
    @Test(arguments: [
        "", "already lower", "Hello THERE, How Are You?", "@[`{ edges AZaz", "ÉCOLE", "Straße", "İstanbul",
        "ΣΊΣΥΦΟΣ", "mixed ASCII and É", "digits 0123 and \u{0} \u{7F}",
    ])
    func isLowercased(_ text: String) {
        #expect(text.fastLowercased == text.lowercased())
    }

    @Test func randomTextsAreLowercased() {
        let pieces = ["a", "Z", "Q", "@", "[", "`", "{", " ", "7", "É", "ß", "İ", "Σ", "\u{301}", "👍🏽"]
        var random = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let count = Int.random(in: 0...16, using: &random)
            let text = (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(text.fastLowercased == text.lowercased(), "\(text)")
        }
    }

    @Test func aStoredPreviewKeepsAShortTextWholeAndCutsALongOne() {
        let limit = MessagePreview.storedLength + 1
        let exactly = String(repeating: "a", count: limit)
        #expect(MessagePreview.stored(exactly) == exactly)
        #expect(MessagePreview.stored(exactly + "b") == exactly)
        let marks = String(repeating: "e\u{301}", count: limit)  // 2 scalars, 3 bytes a character
        #expect(MessagePreview.stored(marks).count == limit)
    }
}
