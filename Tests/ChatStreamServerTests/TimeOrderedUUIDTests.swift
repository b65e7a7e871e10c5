// The server's new IDs: lower-case version-7 UUIDs (time first, then random bits), as Foundation
// would parse them.

import Foundation
import Testing

@testable import ChatStreamServer

@Suite("Time-ordered UUIDs")
struct TimeOrderedUUIDTests {
    @Test func eachIsALowerCaseVersion7UUIDAndTheyDoNotRepeat() {
        var seen = Set<String>()
        var digitsSeen = Set<Character>()
        for _ in 0..<10_000 {
            let id = TimeOrderedUUID.make()
            #expect(id.count == 36)
            #expect(id == id.lowercased())
            let parsed = UUID(uuidString: id)
            #expect(parsed?.uuidString.lowercased() == id, "\(id)")
            let characters = Array(id)
            #expect([8, 13, 18, 23].allSatisfy { characters[$0] == "-" }, "\(id)")
            #expect(characters[14] == "7", "\(id)")
            #expect("89ab".contains(characters[19]), "\(id)")
            digitsSeen.formUnion(characters.dropFirst(14).filter { $0 != "-" })
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
        // Every hexadecimal digit turns up in the random part: the formatting covers the alphabet.
        #expect(digitsSeen == Set("0123456789abcdef"))
    }

    @Test func theFirstTwelveDigitsAreTheTimeInMilliseconds() throws {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let id = TimeOrderedUUID.make()
        let after = UInt64(Date().timeIntervalSince1970 * 1000) + 1
        let time = try #require(UInt64(id.prefix(8) + id.dropFirst(9).prefix(4), radix: 16))
        #expect((before...after).contains(time), "\(id): \(time) not in \(before)...\(after)")

        let fixed = TimeOrderedUUID.make(milliseconds: 1_796_308_800_123)
        #expect(fixed.hasPrefix("01a23c59-127b-7"), "\(fixed)")
    }

    @Test func idsOfLaterMillisecondsSortAfterEarlierOnes() {
        let ids = (0..<1_000).map { TimeOrderedUUID.make(milliseconds: 1_700_000_000_000 + UInt64($0)) }
        #expect(ids == ids.sorted())
        // Within one millisecond they are random, not counted.
        let same = (0..<1_000).map { _ in TimeOrderedUUID.make(milliseconds: 1_700_000_000_000) }
        #expect(Set(same).count == 1_000)
        #expect(same != same.sorted())
    }
}
