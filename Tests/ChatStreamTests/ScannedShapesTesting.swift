// ScannedShapesTesting: what the tests of the scanned hot shapes share: a decoder run that scans
// them or reads only the general way (owned or lent), the comparison of the two at every
// chunking, and a spaced copy of a stream (the same values, in a shape no scan takes).

import ChatStreamFraming
import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@testable import ChatStream

enum ScannedShapesTesting {
    /// What a decoder made of a stream: every event (owned, or lent and then made owned) and the error.
    struct Decoded: Equatable, CustomStringConvertible {
        var events: [StreamEvent] = []
        var error: StreamError?
        var description: String { "\(events.count) events, \(error.map { "\($0)" } ?? "no error")" }
    }

    /// `pieces` through a `StreamDecoder<D>`, scanning or only through yajl, owned or lent.
    static func decode<D: StreamDialect>(
        _: D.Type, _ pieces: [[UInt8]], scanning: Bool = true, lent: Bool = false,
        json: JSONConfiguration = JSONConfiguration()
    ) -> Decoded {
        var configuration = StreamDecoderConfiguration(json: json)
        configuration.json.reading = scanning ? .scanWhenPlain : .tapeOnly
        var decoder = StreamDecoder<D>(configuration: configuration)
        var result = Decoded()
        var sink = RecordingSink()  // the lent path's events, each made owned where it came
        do {
            for piece in pieces {
                if lent {
                    try decoder.feed(piece, into: &sink)
                } else {
                    try decoder.feed(piece, into: &result.events)
                }
            }
            if lent {
                try decoder.finish(into: &sink)
            } else {
                try decoder.finish(into: &result.events)
            }
        } catch {
            result.error = StreamError(converting: error)
        }
        if lent { result.events = sink.all }
        return result
    }

    /// Expects `bytes` to decode scanning, owned and lent, at every chunking, exactly as the
    /// general path decodes the same bytes whole; returns that.
    @discardableResult
    static func expectSameAsGeneralPath<D: StreamDialect>(
        _ dialect: D.Type, _ bytes: [UInt8], json: JSONConfiguration = JSONConfiguration(), chunkings: Bool = true,
        _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) -> Decoded {
        let general = decode(dialect, [bytes], scanning: false, json: json)
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
    /// shape no scan takes.
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
}
