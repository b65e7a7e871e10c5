@_spi(Dialects) import ChatStreamJSON
import TestSupport
import Testing

/// `JSONStreamParser`: values of a stream at every chunking, and its errors as `JSONError`s
/// naming the kind and the stream offset, kept for every later call.
@Suite struct JSONStreamParserTests {
    /// The values of `pieces` fed in turn (each delivered as it completes), and the error that
    /// stopped them, if any.
    static func run(_ pieces: [[UInt8]], configuration: JSONConfiguration = JSONConfiguration()) -> (
        [JSONTree], JSONError?
    ) {
        var stream = JSONStreamParser(configuration: configuration)
        var values: [JSONTree] = []
        do {
            for piece in pieces {
                // The lending form: values completed in the piece that also holds the error are delivered.
                try piece.withUnsafeBytes { bytes in try stream.feed(bytes) { values.append($0.jsonValue) } }
            }
            values += try stream.finish()
            return (values, nil)
        } catch {
            return (values, error as? JSONError)
        }
    }

    @Test func valuesAreTheSameAtEveryChunking() throws {
        let text = Array(#" {"a":"}\""} [1,[2]] "x" 12 true"#.utf8)
        let expected: [JSONTree] = [["a": "}\""], [1, [2]], "x", 12, true]
        for chunking in Chunkings.all(of: text) {
            let (values, error) = Self.run(chunking.pieces)
            #expect(error == nil, "\(chunking)")
            #expect(values == expected, "\(chunking)")
        }
    }

    @Test(arguments: [
        // A byte that cannot start a value: the scanner's, reported as a syntax error at its offset.
        (#"{"a":1} ]"#, JSONError.Kind.syntax, 8, 1),
        // The stream ends inside an object: incomplete, at the end of the stream.
        (#"[1] {"a":"#, JSONError.Kind.incomplete, 9, 1),
        // Nesting past the limit (3 here), at the bracket that crossed it.
        ("[[[[1]]]]", JSONError.Kind.depthLimitExceeded, 3, 0),
    ])
    func errorsNameTheKindAndOffsetAtEveryChunking(text: String, kind: JSONError.Kind, offset: Int, before: Int) {
        for chunking in Chunkings.all(of: Array(text.utf8)) {
            let (values, error) = Self.run(chunking.pieces, configuration: JSONConfiguration(maxDepth: 3))
            #expect(values.count == before, "\(chunking)")
            #expect(error?.kind == kind, "\(chunking)")
            #expect(error?.byteOffset == offset, "\(chunking)")
        }
    }

    @Test func anErrorIsThrownAgainByEveryLaterCall() throws {
        var stream = JSONStreamParser()
        var first: JSONError?
        do { _ = try stream.feed(Array("1 ]".utf8)) } catch { first = error as? JSONError }
        #expect(first?.kind == .syntax)
        #expect(throws: first!) { _ = try stream.feed(Array(" 2".utf8)) }
        #expect(throws: first!) { _ = try stream.finish() }
    }
}
