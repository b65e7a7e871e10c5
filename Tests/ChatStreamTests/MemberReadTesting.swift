// MemberReadTesting: what the tests of the reads by position share: whether the member read
// skips a unit whole, whether the parser reads it, a decoder run that reads by position or only
// the general way (owned or lent), the comparison of the two at every chunking, a spaced copy of
// a stream (the same values, in a shape no read by position takes), and text generators.

import ChatStreamFraming
import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@testable import ChatStream

enum MemberReadTesting {
    /// Whether `unit` is read whole as an object whose every member is skipped.
    static func skipsWhole(_ unit: [UInt8], _ limits: JSONConfiguration = JSONConfiguration()) -> Bool {
        unit.withUnsafeBytes { data in
            guard var read = PositionalRead(checking: data, depth: 1, configuration: limits), read.literal("{") else {
                return false
            }
            while true {
                guard read.memberKey() != nil, read.skipValue(depth: 1), let more = read.moreMembers() else {
                    return false
                }
                if !more { break }
            }
            return read.isAtEnd
        }
    }

    static func skipsWhole(_ unit: String, _ limits: JSONConfiguration = JSONConfiguration()) -> Bool {
        skipsWhole(Array(unit.utf8), limits)
    }

    /// Whether the parser reads `unit` as one value within `limits`.
    static func parses(_ unit: [UInt8], _ limits: JSONConfiguration = JSONConfiguration()) -> Bool {
        (try? JSONParser(configuration: limits).parse(unit) { _ in () }) != nil
    }

    /// What a decoder made of a stream: every event (owned, or lent and then made owned) and the error.
    struct Decoded: Equatable, CustomStringConvertible {
        var events: [StreamEvent] = []
        var error: StreamError?
        var description: String { "\(events.count) events, \(error.map { "\($0)" } ?? "no error")" }
    }

    /// `pieces` through a `StreamDecoder<D>`, reading by position or only the general way, owned or lent.
    static func decode<D: StreamDialect>(
        _: D.Type, _ pieces: [[UInt8]], byPosition: Bool = true, lent: Bool = false,
        json: JSONConfiguration = JSONConfiguration()
    ) -> Decoded {
        var configuration = StreamDecoderConfiguration(json: json)
        configuration.readsByPosition = byPosition
        var decoder = StreamDecoder<D>(configuration: configuration)
        var result = Decoded()
        do {
            for piece in pieces {
                try piece.withUnsafeBytes { bytes in
                    if lent {
                        try decoder.decodeViews(bytes) { result.events.append($0.owned) }
                    } else {
                        try decoder.decode(bytes) { result.events.append($0) }
                    }
                }
            }
            if lent {
                try decoder.finishViews { result.events.append($0.owned) }
            } else {
                try decoder.finish { result.events.append($0) }
            }
        } catch {
            result.error = StreamError(converting: error)
        }
        return result
    }

    /// Expects `bytes` to decode by position, owned and lent, at every chunking, exactly as the
    /// general path decodes the same bytes whole; returns that.
    @discardableResult
    static func expectSameAsGeneralPath<D: StreamDialect>(
        _ dialect: D.Type, _ bytes: [UInt8], json: JSONConfiguration = JSONConfiguration(), chunkings: Bool = true,
        _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) -> Decoded {
        let general = decode(dialect, [bytes], byPosition: false, json: json)
        let all = Chunkings.all(of: bytes, seeds: chunkings ? [1, 2] : [])
        let cuts = chunkings ? all : Array(all.prefix(1))
        for chunking in cuts {
            for lent in [false, true] {
                let read = decode(dialect, chunking.pieces, lent: lent, json: json)
                #expect(
                    read == general, "\(comment) \(chunking) lent \(lent): \(read) != \(general)",
                    sourceLocation: sourceLocation)
            }
        }
        return general
    }

    /// `bytes` with a space after every `:` outside strings in each unit's JSON (an SSE event's
    /// `data:` lines that hold an object, or the whole body of a JSON array): the same values, in a
    /// shape no read by position takes.
    static func spacedCopy(_ bytes: [UInt8], sse: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false
        var escaped = false
        func json(_ byte: UInt8) {
            out.append(byte)
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ":") {
                out.append(UInt8(ascii: " "))
            }
        }
        guard sse else {
            for byte in bytes { json(byte) }
            return out
        }
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
            let line = Array(bytes[lineStart..<lineEnd])
            if line.starts(with: Array("data:".utf8)) {
                var valueStart = 5
                if line.count > 5, line[5] == UInt8(ascii: " ") { valueStart = 6 }
                out += line[..<valueStart]
                let value = line[valueStart...]
                if value.first == UInt8(ascii: "{") || inString {
                    for byte in value { json(byte) }
                } else {
                    out += value
                }
            } else {
                out += line
                if line.isEmpty { inString = false }
            }
            var next = lineEnd
            while next < bytes.count, bytes[next] == 0x0A || bytes[next] == 0x0D, next - lineEnd < 2 {
                out.append(bytes[next])
                next += 1
                if bytes[next - 1] == 0x0A { break }
            }
            lineStart = next
        }
        return out
    }

    /// Random pieces of text: one to four characters, quotes, backslashes, controls, multi-byte.
    static func randomPieces(count: Int, seed: UInt64) -> [String] {
        let alphabet: [String] = [
            "a", "b", " ", "word", "\"", "\\", "/", "{", "}", "[", "]", ":", ",", "\n", "\t", "\u{01}", "é", "中", "😀",
            "\u{7F}",
        ]
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            (0...Int(generator.next() % 4)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
                .joined()
        }
    }

    /// Runs `body` with `bytes` as a unit's data, at stream offset 0.
    static func withUnit<R>(_ bytes: [UInt8], _ body: (FramedUnit) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try body(FramedUnit(data: $0, streamOffset: 0)) }
    }

    /// A random compact JSON value: numbers in every form, strings with every escape, nesting.
    static func randomValue(_ generator: inout SplitMix64, depth: Int = 0) -> String {
        let numbers = [
            "0", "-0", "7", "-12", "1.5", "-0.25", "1e5", "1E+5", "2.5e-10", "123456789012345678901234567890",
        ]
        let strings = [
            #""""#, #""abc""#, #""\"\\\/\b\f\n\r\t""#, #""\u0041\u00e9\uD83D\uDE00\uDEAD\uD800""#, "\"é中😀\"",
            #""{\"k\":[1]}""#,
        ]
        switch generator.next() % (depth < 4 ? 6 : 4) {
        case 0: return numbers[Int(generator.next() % UInt64(numbers.count))]
        case 1: return strings[Int(generator.next() % UInt64(strings.count))]
        case 2: return ["true", "false", "null"][Int(generator.next() % 3)]
        case 3: return strings[Int(generator.next() % UInt64(strings.count))]
        case 4:
            let count = Int(generator.next() % 4)
            return "[" + (0..<count).map { _ in randomValue(&generator, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let count = Int(generator.next() % 4)
            return "{"
                + (0..<count).map { index in
                    strings[Int(generator.next() % UInt64(strings.count))].dropLast() + "\(index)\":"
                        + randomValue(&generator, depth: depth + 1)
                }.joined(separator: ",") + "}"
        }
    }

    /// `text` with each `(of, with)` replacement made (each must find something: a variant that
    /// silently stayed the usual unit would test nothing).
    static func edited(_ text: String, _ replacements: [(String, String)]) -> String {
        var out = text
        for (of, with) in replacements {
            precondition(out.contains(of), "\(of) not in \(out)")
            out = out.replacingOccurrences(of: of, with: with)
        }
        return out
    }
}
