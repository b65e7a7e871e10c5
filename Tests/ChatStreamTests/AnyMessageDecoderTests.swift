// AnyMessageDecoder against its two oracles on a stream of every format, at every chunking:
// `MessageDecoder` of the format's dialect (chosen at compile time), and `AnyStreamDecoder`
// assembled event by event; with the format given and detected. Then detection's failures.

import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// `pieces` through an AnyMessageDecoder (stopping at the first error).
private func anyMessageDecoder(
    _ format: StreamFormat?, _ pieces: [[UInt8]], configuration: StreamDecoderConfiguration = .init()
) -> (outcome: StreamCorpus.Outcome, format: StreamFormat?) {
    var decoder = AnyMessageDecoder(format: format, configuration: configuration)
    for piece in pieces {
        do { try decoder.feed(piece) } catch { break }
    }
    let messages = decoder.finish()
    let outcome = StreamCorpus.Outcome(
        messages: messages, failure: decoder.failure, skippedErrors: decoder.skippedErrors,
        unknownUnitCount: decoder.unknownUnitCount)
    return (outcome, decoder.format)
}

/// `pieces` through AnyStreamDecoder and MessageAssembler, event by event.
private func eventByEvent(
    _ format: StreamFormat?, _ pieces: [[UInt8]], configuration: StreamDecoderConfiguration = .init()
) -> StreamCorpus.Outcome {
    var decoder = AnyStreamDecoder(format: format, configuration: configuration)
    let result = assembleEventByEvent(&decoder, pieces)
    return StreamCorpus.Outcome(
        messages: result.messages, failure: result.failure, skippedErrors: decoder.skippedErrors,
        unknownUnitCount: decoder.unknownUnitCount)
}

@Suite(.blockingAllowed) struct AnyMessageDecoderTests {
    @Test func theCorpusHasEveryFormat() {
        #expect(Set(StreamCorpus.all.map(\.format)) == Set(StreamFormat.allCases))
        #expect(StreamCorpus.all.count >= 60)
    }

    @Test(arguments: StreamCorpus.all)
    func givesTheMessagesOfTheTypedDecoderAndOfTheEventPathAtEveryChunking(_ stream: CorpusStream) async throws {
        let detected = try #require(stream.detectedFormat)
        #expect(detected == stream.format || stream.name == "first_chunk_overloaded_error")
        for format in [stream.format, nil] {
            let expected = StreamCorpus.messageDecoder(format ?? detected, [stream.bytes])
            // The two oracles agree.
            #expect(eventByEvent(format, [stream.bytes]) == expected)
            for (chunking, pieces) in stream.chunkings {
                let result = anyMessageDecoder(format, pieces)
                #expect(result.outcome == expected, "\(chunking), format \(format?.rawValue ?? "detected")")
                #expect(result.format == format ?? detected, "\(chunking)")
                await Task.yield()  // a capture byte by byte takes a while: let other tests run
            }
        }
    }

    @Test func lenientModeSkipsAndCountsAsTheTypedDecoderDoes() throws {
        let input = Array(
            """
            data: {"type":"text-delta","id":"a","delta":"one "}

            data: {"type":"text-delta","id":"a"}

            data: {"type":"no-such-chunk"}

            data: {"type":"text-delta","id":"a","delta":"two"}

            data: [DONE]


            """.utf8)
        let lenient = StreamDecoderConfiguration(lenient: true)
        let expected = StreamCorpus.messageDecoder(.uiMessageStream, [input], configuration: lenient)
        #expect(expected.skippedErrors.count == 1)
        #expect(expected.unknownUnitCount == 1)
        #expect(expected.messages.first?.text == "one two")
        for chunking in Chunkings.all(of: input, seeds: [4]) {
            #expect(anyMessageDecoder(nil, chunking.pieces, configuration: lenient).outcome == expected)
            #expect(eventByEvent(nil, chunking.pieces, configuration: lenient) == expected)
        }
    }

    @Test func messageMidStreamIsTheTypedDecodersAndEmptyBeforeTheFormatIsKnown() throws {
        let input = try #require(StreamCorpus.all.first { $0.name == "tool-round-trip.sse" }).bytes
        var decoder = AnyMessageDecoder(format: nil)
        var typed = MessageDecoder<UIMessageStreamDialect>()
        #expect(decoder.message() == MessageAssembler().message)
        for byte in input {
            try decoder.feed([byte])
            try typed.feed([byte])
            #expect(decoder.message() == typed.message())
        }
        #expect(decoder.message().toolCalls.first?.toolName == "get_weather")
        #expect(decoder.finish() == typed.finish())
    }

    // MARK: - Detection

    @Test(arguments: [
        ("prose", "hello there\n", StreamError.Kind.malformed),
        ("whitespace", " \r\n\t\n", .truncated),
        ("nothing", "", .truncated),
    ])
    func aStreamOfNoKnownFormatGivesOneMessageWithTheError(_ name: String, _ text: String, _ kind: StreamError.Kind) {
        let input = Array(text.utf8)
        let expected = eventByEvent(nil, [input])
        #expect(expected.failure?.kind == kind)
        for chunking in Chunkings.all(of: input, seeds: [1]) {
            let result = anyMessageDecoder(nil, chunking.pieces)
            #expect(result.outcome == expected, "\(name) \(chunking)")
            #expect(result.format == nil)
            #expect(result.outcome.messages.count == 1)
            #expect(result.outcome.messages.first?.isFinished == true)
            #expect(result.outcome.messages.first?.error == expected.failure?.info)
        }
    }

    @Test func detectionFailureIsThrownAgainAndFinishRepeats() throws {
        var decoder = AnyMessageDecoder(format: nil)
        #expect(throws: Never.self) { try decoder.feed(Array("not a".utf8)) }  // no whole line yet
        #expect(decoder.failure == nil)
        let error = #expect(throws: StreamError.self) { try decoder.feed(Array(" stream\ndata: {}\n\n".utf8)) }
        #expect(error?.kind == .malformed)
        #expect(error?.message == "the stream is in no format ChatStream knows")
        #expect(decoder.failure == error)
        #expect(throws: StreamError.self) { try decoder.feed(Array("data: [DONE]\n\n".utf8)) }
        let messages = decoder.finish()
        #expect(messages.count == 1 && messages[0].error == error?.info)
        #expect(decoder.finish() == messages)
        #expect(decoder.failure == error)
    }

    @Test func detectionGivesUpAfterItsLimitAsAnyStreamDecoderDoes() throws {
        // One line that never ends, starting like SSE: no line decides the format.
        let input =
            Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: AnyStreamDecoder.maxDetectionBytes)
        var decoder = AnyMessageDecoder(format: nil)
        var events = AnyStreamDecoder(format: nil)
        let error = #expect(throws: StreamError.self) { try decoder.feed(input) }
        let eventError = #expect(throws: StreamError.self) {
            _ = try events.feed(input)
        }
        #expect(error?.kind == .malformed)
        #expect(error == eventError)
        #expect(decoder.finish().first?.error == error?.info)
    }

    @Test func aFormatGivenIsNotDetected() throws {
        // Anthropic's bytes read as the home protocol: no detection, and so a different message.
        let stream = try #require(StreamCorpus.all.first { $0.format == .anthropic })
        let given = anyMessageDecoder(.uiMessageStream, [stream.bytes])
        #expect(given.format == .uiMessageStream)
        #expect(given.outcome == StreamCorpus.messageDecoder(.uiMessageStream, [stream.bytes]))
        #expect(given.outcome != anyMessageDecoder(nil, [stream.bytes]).outcome)
    }
}
