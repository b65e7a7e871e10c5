// Every input that ever crashed a fuzz target, replayed through the same layer with the same
// checks the target makes (whole versus chunked, and the target's main invariant).
//
// Inputs live in Tests/ChatStreamTests/FuzzRegressions/<Target>-<what>.bin, in the fuzz input
// format: byte 0 seeds the chunking, byte 1 holds the options, the rest is the payload (see
// Fuzz/Support/FuzzInput.swift). Add a file here whenever Fuzz/ci.sh or Fuzz/run.sh finds a crash.

import ChatStreamFraming
import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@testable import ChatStream
@testable import ChatStreamLive

@Suite(.blockingAllowed) struct FuzzRegressionTests {
    static let directory = ProjectPaths.root + "/Tests/ChatStreamTests/FuzzRegressions"

    static let files: [String] = {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".bin") }
            .sorted()
    }()

    /// The target's chunking of a payload (the same cut as FuzzInput.pieces).
    static func pieces(_ payload: [UInt8], seed: UInt8) -> [[UInt8]] {
        let maxPiece = [1, 7, 64, 4096][Int(seed & 3)]
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        var result: [[UInt8]] = []
        var index = 0
        while index < payload.count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let size = maxPiece == 1 ? Int(state % 5 == 0 ? 0 : 1) : Int(state % UInt64(maxPiece + 1))
            let end = min(payload.count, index + size)
            result.append(Array(payload[index..<end]))
            index = end
        }
        result.append([])
        return result
    }

    @Test func regressionInputsArePresent() {
        #expect(!Self.files.isEmpty)
    }

    @Test(arguments: files)
    func replays(_ name: String) throws {
        let bytes = Array(FileManager.default.contents(atPath: Self.directory + "/" + name) ?? Data())
        try #require(bytes.count >= 2)
        let seed = bytes[0]
        let options = bytes[1]
        let payload = Array(bytes[2...])
        let pieces = Self.pieces(payload, seed: seed)
        switch name.prefix(while: { $0 != "-" }) {
        case "FuzzSSE": replaySSE(payload, pieces)
        case "FuzzFraming": replayFraming(payload, pieces, options: options)
        case "FuzzJSON": try replayJSON(payload, pieces)
        case "FuzzDialects":
            // The dialect order of Fuzz/Targets/FuzzDialects.
            let lenient = options & 8 != 0
            switch Int(options & 7) % 7 {
            case 0: replayDialect(UIMessageStreamDialect.self, payload, pieces, lenient: lenient)
            case 1: replayDialect(OpenAIChatDialect.self, payload, pieces, lenient: lenient)
            case 2: replayDialect(OpenAIResponsesDialect.self, payload, pieces, lenient: lenient)
            case 3: replayDialect(AnthropicDialect.self, payload, pieces, lenient: lenient)
            case 4: replayDialect(DataStreamV4Dialect.self, payload, pieces, lenient: lenient)
            case 5: replayDialect(OllamaDialect.self, payload, pieces, lenient: lenient)
            default: replayDialect(GeminiDialect.self, payload, pieces, lenient: lenient)
            }
        case "FuzzHistory": try replayJSON(payload, pieces)
        case "FuzzLiveEvents": replayLive(payload, pieces, options: options)
        default: Issue.record("unknown target in \(name)")
        }
    }

    func replaySSE(_ payload: [UInt8], _ pieces: [[UInt8]]) {
        func run(_ pieces: [[UInt8]]) -> Result<[ServerSentEvent], FramingError> {
            var decoder = ServerSentEventDecoder()
            do {
                var events: [ServerSentEvent] = []
                for piece in pieces { events += try decoder.feed(piece) }
                events += try decoder.finish()
                return .success(events)
            } catch {
                return .failure(error as! FramingError)
            }
        }
        #expect(run([payload]) == run(pieces))
    }

    func replayFraming(_ payload: [UInt8], _ pieces: [[UInt8]], options: UInt8) {
        func run(_ pieces: [[UInt8]]) -> String {
            do {
                switch options & 3 {
                case 0:
                    var decoder = NDJSONDecoder()
                    var lines: [NDJSONLine] = []
                    for piece in pieces { lines += try decoder.feed(piece) }
                    return "\(lines + (try decoder.finish()))"
                case 1:
                    var decoder = DataStreamV4Decoder()
                    var parts: [DataStreamV4Part] = []
                    for piece in pieces { parts += try decoder.feed(piece) }
                    return "\(parts + (try decoder.finish()))"
                case 2:
                    var framer = JSONArrayElementFramer()
                    var elements: [[UInt8]] = []
                    for piece in pieces { elements += try framer.feed(piece).map(\.bytes) }
                    elements += try framer.finish().map(\.bytes)
                    return "\(elements)"
                default:
                    var framer = JSONSequenceFramer()
                    var values: [[UInt8]] = []
                    for piece in pieces { values += try framer.feed(piece).map(\.bytes) }
                    return "\(values + (try framer.finish().map(\.bytes)))"
                }
            } catch {
                return "error \(error)"
            }
        }
        #expect(run([payload]) == run(pieces))
    }

    func replayLive(_ payload: [UInt8], _ pieces: [[UInt8]], options: UInt8) {
        let format: ConversationEventFormat = options & 1 != 0 ? .salesforceMessaging : .home
        func run(_ pieces: [[UInt8]]) -> String {
            var decoder = ConversationEventDecoder(format: format)
            var events: [ConversationEvent] = []
            do {
                for piece in pieces { events += try decoder.feed(piece) }
                events += try decoder.finish()
            } catch {
                return "\(events) \(error)"
            }
            return "\(events) \(decoder.skippedErrors) \(decoder.unknownEventCount)"
        }
        #expect(run([payload]) == run(pieces))
    }

    func replayJSON(_ payload: [UInt8], _ pieces: [[UInt8]]) throws {
        let parser = JSONParser()
        func parse() -> Result<JSONTree, JSONError> {
            do { return .success(try parser.parseValue(payload)) } catch { return .failure(error as! JSONError) }
        }
        let first = parse()
        // The same parser, again: the first parse must not leave state behind.
        let second = parse()
        #expect(first == second)
        #expect(try parser.parseValue(Array(#"{"a":[1,"x",null]}"#.utf8)) == ["a": [1, "x", nil]])
        if case .success(let value) = first {
            #expect(try JSONParser().parseValue(value.jsonBytes) == value)
        }
        func partial(_ pieces: [[UInt8]]) -> Result<JSONTree, PartialJSONError> {
            var parser = PartialJSONParser()
            do {
                for piece in pieces {
                    try parser.append(piece)
                    _ = parser.value
                }
                return .success(try parser.finish())
            } catch {
                return .failure(error as! PartialJSONError)
            }
        }
        let partialWhole = partial([payload])
        #expect(partialWhole == partial(pieces))
        switch (partialWhole, first) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure, .failure): break
        default: Issue.record("PartialJSONParser and JSONParser disagree: \(partialWhole) vs \(first)")
        }
    }

    func replayDialect<D: StreamDialect>(_ type: D.Type, _ payload: [UInt8], _ pieces: [[UInt8]], lenient: Bool) {
        func run(_ pieces: [[UInt8]]) -> ([StreamEvent], StreamError?) {
            var decoder = StreamDecoder<D>(configuration: StreamDecoderConfiguration(lenient: lenient))
            var events: [StreamEvent] = []
            do {
                for piece in pieces { events += try decoder.feed(piece) }
                events += try decoder.finish()
                return (events, nil)
            } catch {
                return (events, error as? StreamError)
            }
        }
        let whole = run([payload])
        let chunked = run(pieces)
        #expect(whole.0 == chunked.0)
        #expect(whole.1 == chunked.1)
        #expect(OneFinish.violations(whole.0, complete: false).isEmpty)
        var assembler = MessageAssembler()
        var text: [Int: String] = [:]
        for event in whole.0 {
            assembler.apply(event)
            if case .textDelta(_, let delta) = event { text[assembler.currentChoice, default: ""] += delta }
        }
        for message in assembler.finish(error: whole.1) {
            #expect(message.text == text[message.choice, default: ""])
        }
        // The lent path (FuzzDialects bit 7): no text delta emitted owned, the same text.
        let lent = LentPath.check(D.self, pieces, lenient: lenient)
        #expect(lent.ownedFromDialect == 0, "\(D.self): a text delta came owned")
        #expect(lent.ownedViews == 0)
        #expect(lent.textFromViews == lent.textFromEvents)
        #expect(lent.errorFromViews == lent.errorFromEvents)
    }

    // Bugs the fuzzers found, as plain unit tests.

    @Test(arguments: ["\"\"\"", #"{} "ab"#, "[1] tru", #""x" "y"#, "null \"", "1 2"])
    func trailingPartialTokenIsRejectedAndDoesNotLeakIntoTheNextValue(_ text: String) throws {
        let parser = JSONParser()
        let error = #expect(throws: JSONError.self) { try parser.parseValue(Array(text.utf8)) }
        #expect(error?.kind == .multipleValues)
        // The next payload parses on its own, untouched by the bytes yajl was still lexing.
        #expect(try parser.parseValue(Array(#"{"a":"b"}"#.utf8)) == ["a": "b"])
        #expect(try parser.parseValue(Array(#""plain""#.utf8)) == "plain")
    }

    @Test func responsesDeltaWithoutOutputIndexResolvesRepeatedItemIDsTheSameWayEveryTime() throws {
        // Two function calls share an item ID; a delta names only the ID. Found by FuzzDialects as
        // a whole-versus-chunked difference: the choice depended on dictionary iteration order.
        // Eight calls share the ID, added in a scrambled order; the old lookup took whichever the
        // dictionary listed first (a 1 in 8 chance of being the lowest index).
        let added = [5, 2, 7, 0, 3, 6, 1, 4].map {
            #"{"type":"response.output_item.added","output_index":\#($0),"item":{"type":"function_call","id":"fc","call_id":"call-\#($0)","name":"f"}}"#
        }
        let stream = (added + [#"{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"{}"}"#])
            .map { "data: \($0)\n\n" }.joined()
        var outcomes: Set<[StreamEvent]> = []
        for _ in 0..<40 {
            var decoder = StreamDecoder<OpenAIResponsesDialect>()
            outcomes.insert(try decoder.feed(Array(stream.utf8)))
        }
        #expect(outcomes.count == 1)
        #expect(outcomes.first?.last == .toolInputDelta(id: "call-0", delta: "{}"))
    }
}
