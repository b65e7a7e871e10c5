// The server's new IDs: random version-4 UUIDs in lower case, as Foundation would parse them.

import Foundation
import Testing

@testable import ChatStreamServer

@Suite("Random UUIDs")
struct RandomUUIDTests {
    @Test func eachIsALowerCaseVersion4UUIDAndTheyDoNotRepeat() {
        var seen = Set<String>()
        var digitsSeen = Set<Character>()
        for _ in 0..<10_000 {
            let id = RandomUUID.make()
            #expect(id.count == 36)
            #expect(id == id.lowercased())
            let parsed = UUID(uuidString: id)
            #expect(parsed?.uuidString.lowercased() == id, "\(id)")
            let characters = Array(id)
            #expect([8, 13, 18, 23].allSatisfy { characters[$0] == "-" }, "\(id)")
            #expect(characters[14] == "4", "\(id)")
            #expect("89ab".contains(characters[19]), "\(id)")
            digitsSeen.formUnion(characters.filter { $0 != "-" })
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
        // Every hexadecimal digit turns up: the formatting covers the whole alphabet.
        #expect(digitsSeen == Set("0123456789abcdef"))
    }
}
