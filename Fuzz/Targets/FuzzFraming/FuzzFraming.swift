// FuzzFraming: NDJSON lines, data stream v4 parts, JSON-array elements and JSON-sequence values.
//
// Options byte: bits 0-1 pick the framing (NDJSON, v4, JSON array, JSON sequence); bit 2 selects
// small limits (line/element size from bits 3-7, depth 4) so the limit paths are reached.
// Invariants: the same units and error whatever the chunking; every unit is the exact slice of
// the input at its reported offset (so no unit is larger than the input and none is invented);
// units arrive in offset order; a failed decoder keeps throwing.

@_spi(Dialects) import ChatStream
@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON
import FuzzSupport

struct Unit: Equatable {
    var code: [UInt8]
    var bytes: [UInt8]
    var offset: Int
}

struct Outcome: Equatable {
    var units: [Unit] = []
    var error: String?
}

enum Framing: Int { case ndjson, v4, array, sequence }

func run(_ framing: Framing, _ pieces: [ArraySlice<UInt8>], limit: Int, depth: Int) -> Outcome {
    var outcome = Outcome()
    do {
        switch framing {
        case .ndjson:
            var decoder = NDJSONDecoder(configuration: .init(maxLineBytes: limit))
            let onLine: (NDJSONLineView) -> Void = {
                outcome.units.append(Unit(code: [], bytes: Array($0.bytes), offset: $0.byteOffset))
            }
            try forEachPiece(pieces) { bytes in
                try decoder.feed(bytes, onLine)
                check(decoder.bufferedByteCount <= limit + 1, "NDJSON buffered \(decoder.bufferedByteCount) > \(limit)")
            }
            try decoder.finish(onLine)
        case .v4:
            var decoder = DataStreamV4Decoder(configuration: .init(maxLineBytes: limit))
            let onPart: (DataStreamV4PartView) -> Void = { part in
                check(!part.code.isEmpty, "v4 part with an empty code")
                outcome.units.append(Unit(code: Array(part.code), bytes: Array(part.payload), offset: part.byteOffset))
            }
            try forEachPiece(pieces) { bytes in
                try decoder.feed(bytes, onPart)
                check(decoder.bufferedByteCount <= limit + 1, "v4 buffered \(decoder.bufferedByteCount) > \(limit)")
            }
            try decoder.finish(onPart)
        case .array:
            var framer = JSONArrayElementFramer(maxDepth: depth, maxElementBytes: limit)
            try forEachPiece(pieces) { bytes in
                try framer.feed(bytes) { element, offset in
                    outcome.units.append(Unit(code: [], bytes: Array(element), offset: offset))
                }
            }
            _ = try framer.finish()
            check(framer.elementCount == outcome.units.count, "elementCount disagrees")
        case .sequence:
            var framer = JSONSequenceFramer(maxDepth: depth, maxValueBytes: limit)
            let onValue: (UnsafeRawBufferPointer, Int) -> Void = { value, offset in
                outcome.units.append(Unit(code: [], bytes: Array(value), offset: offset))
            }
            try forEachPiece(pieces) { bytes in try framer.feed(bytes, onValue) }
            try framer.finish(onValue)
            check(framer.valueCount == outcome.units.count, "valueCount disagrees")
        }
    } catch {
        outcome.error = String(describing: error)
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    let framing = Framing(rawValue: Int(input.options & 3))!
    let small = input.bit(2)
    let limit = small ? 1 + Int(input.options >> 3) * 5 : 16 << 20
    let depth = small ? 4 : 512
    let payload = input.payload
    let whole = run(framing, [payload[...]], limit: limit, depth: depth)
    let chunked = run(framing, input.pieces, limit: limit, depth: depth)
    check(whole == chunked, "\(framing): whole and chunked differ:\n\(whole)\n\(chunked)")

    var lastEnd = 0
    for unit in whole.units {
        check(unit.offset >= lastEnd, "\(framing): unit at \(unit.offset) overlaps the previous one (ends \(lastEnd))")
        check(unit.bytes.count <= limit, "\(framing): unit of \(unit.bytes.count) bytes above the limit \(limit)")
        var expected = unit.code
        if framing == .v4 { expected.append(UInt8(ascii: ":")) }
        expected += unit.bytes
        let end = unit.offset + expected.count
        check(end <= payload.count, "\(framing): unit runs past the input")
        check(Array(payload[unit.offset..<end]) == expected, "\(framing): unit is not the input slice at its offset")
        lastEnd = end
    }
    return 0
}
