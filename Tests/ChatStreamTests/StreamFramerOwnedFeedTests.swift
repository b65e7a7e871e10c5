import ChatStreamFraming
import TestSupport
import Testing

@testable import ChatStream

/// The owned verbs every framer shares through `StreamFramer`: `feed(_:)` takes any collection of
/// bytes (an array is read where it lies; a collection without contiguous storage is copied
/// first) and `finish()` returns a last unit the end completes. The units are the same whatever
/// the collection and however the input is cut.
@Suite(.blockingAllowed) struct StreamFramerOwnedFeedTests {
    /// Frames `input` whole and at every chunking of `Chunkings.all`, each piece fed once as an
    /// array and once as a lazy collection, and checks every way gives `expected`.
    func check<F: StreamFramer>(_: F.Type, _ input: String, _ expected: [F.Output]) throws where F.Output: Equatable {
        for chunking in Chunkings.all(of: Array(input.utf8)) {
            for lazily in [false, true] {
                var framer = F(configuration: .default)
                var units: [F.Output] = []
                for piece in chunking.pieces {
                    units += lazily ? try framer.feed(piece.lazy.map { $0 }) : try framer.feed(piece)
                }
                units += try framer.finish()
                #expect(units == expected, "\(chunking), lazily: \(lazily)")
            }
        }
    }

    @Test func everyFramerGivesTheSameUnitsFromAnyCollection() throws {
        try check(
            NDJSONDecoder.self, "{\"a\":1}\n\n{\"b\":2}\r\n{\"c\"",
            [
                NDJSONLine(bytes: Array(#"{"a":1}"#.utf8), byteOffset: 0),
                NDJSONLine(bytes: Array(#"{"b":2}"#.utf8), byteOffset: 9),
                NDJSONLine(bytes: Array(#"{"c""#.utf8), byteOffset: 18),
            ])
        try check(
            ServerSentEventDecoder.self, "data: a\n\nid: 7\ndata: b\n\ndata: cut",
            [ServerSentEvent(data: "a"), ServerSentEvent(data: "b", id: "7")])
        try check(
            DataStreamV4Decoder.self, "0:\"Hi\"\nd:{}",
            [
                DataStreamV4Part(code: "0", payload: Array(#""Hi""#.utf8), byteOffset: 0),
                DataStreamV4Part(code: "d", payload: Array("{}".utf8), byteOffset: 7),
            ])
        try check(
            JSONSequenceFramer.self, #"1 {"a":2} 3"#,
            [
                JSONValueBytes(bytes: Array("1".utf8), byteOffset: 0),
                JSONValueBytes(bytes: Array(#"{"a":2}"#.utf8), byteOffset: 2),
                JSONValueBytes(bytes: Array("3".utf8), byteOffset: 10),
            ])
        try check(
            JSONArrayElementFramer.self, #"[1, {"a":2}]"#,
            [
                JSONValueBytes(bytes: Array("1".utf8), byteOffset: 1),
                JSONValueBytes(bytes: Array(#"{"a":2}"#.utf8), byteOffset: 4),
            ])
    }

    @Test func finishIntoReportsTheEndAndFinishThrowsWhereAClosingIsMissing() throws {
        var sse = ServerSentEventDecoder()
        var events = try sse.feed(Array("data: a\n\ndata: cut".utf8))
        let end = try sse.finish(into: &events)
        #expect(events == [ServerSentEvent(data: "a")])
        #expect(end.droppedFromOffset == 9)
        #expect(end.totalBytes == 18)

        var array = JSONArrayElementFramer()
        #expect(try array.feed(Array("[1,".utf8)).map(\.bytes) == [Array("1".utf8)])
        let error = #expect(throws: FramingError.self) { try array.finish() }
        #expect(error?.kind == .truncated)
    }
}
