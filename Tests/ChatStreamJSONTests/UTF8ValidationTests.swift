// UTF8Validation against the standard library's UTF-8 parser, which reports an ill-formed
// sequence where it starts: every lead byte with every second byte and chosen third and fourth
// bytes, each placed at every position near both ends of runs of several lengths (the fast path
// reads three bytes past the lead; the last three bytes of a buffer take the checked path).

import Testing

@testable import ChatStreamJSON

/// Where the first ill-formed sequence starts, by the standard library's parser.
private func referenceFirstInvalid(_ bytes: [UInt8]) -> Int? {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar): offset += scalar.count
        case .emptyInput: return nil
        case .error: return offset
        }
    }
}

private func firstInvalid(_ bytes: [UInt8]) -> Int? {
    bytes.withUnsafeBytes { UTF8Validation.firstInvalidIndex($0) }
}

@Suite struct UTF8ValidationTests {
    /// Every sequence of one lead byte (0x80-0xFF) and the bytes after it that tell the forms apart.
    static let sequences: [[UInt8]] = {
        let seconds: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        let laters: [UInt8] = [0x41, 0x80, 0xBF, 0xC0]
        var result: [[UInt8]] = []
        for lead in UInt8(0x80)...0xFF {
            for second in seconds {
                result.append([lead, second])
                for third in laters {
                    result.append([lead, second, third])
                    for fourth in laters { result.append([lead, second, third, fourth]) }
                }
            }
            result.append([lead])
        }
        return result
    }()

    @Test func agreesWithTheStandardLibraryEverywhere() {
        var checked = 0
        var invalid = 0
        for sequence in Self.sequences {
            for length in [0, 3, 8, 13] {
                for position in Set([0, 1, max(0, length - 2), length]) where position <= length {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    bytes.insert(contentsOf: sequence, at: position)
                    let expected = referenceFirstInvalid(bytes)
                    #expect(firstInvalid(bytes) == expected, "\(sequence) at \(position) of \(length)")
                    checked += 1
                    if expected != nil { invalid += 1 }
                }
            }
        }
        #expect(checked > 100_000)
        #expect(invalid > checked / 2)
    }

    @Test func runsOfMultibyteTextAreValid() {
        let text = Array("café naïve über 日本語 テキスト 中文 🚀 👍🏽 Ωmega emoji😀".utf8)
        for start in 0..<8 {
            let bytes = Array(repeating: UInt8(0x61), count: start) + text
            #expect(firstInvalid(bytes) == nil)
            #expect(firstInvalid(bytes + [0xE2, 0x82]) == bytes.count)
        }
    }
}
