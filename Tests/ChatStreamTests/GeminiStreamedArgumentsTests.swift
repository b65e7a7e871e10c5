import ChatStreamJSON
import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// Gemini's streamed function-call arguments (`streamFunctionCallArguments`): one call spread over
/// elements whose `functionCall` carries `partialArgs` and no `name`.
@Suite(.blockingAllowed) struct GeminiStreamedArgumentsTests {
    static let fixture =
        ProjectPaths.fixtures + "/vendor-streams/json-array/handwritten__streamed-function-call-arguments.json"

    /// The events of `pieces` decoded as a JSON array, and the error that ended them.
    static func events(_ pieces: [[UInt8]]) -> (events: [StreamEvent], error: StreamError?) {
        var decoder = StreamDecoder<GeminiDialect>()
        var events: [StreamEvent] = []
        do {
            for piece in pieces { try decoder.feed(piece, into: &events) }
            try decoder.finish(into: &events)
        } catch {
            return (events, StreamError(converting: error))
        }
        return (events, nil)
    }

    @Test func eachStreamedCallIsOneCallWhoseDeltasAreItsInputAtEveryChunking() throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture)))
        let whole = Self.events([input])
        #expect(whole.error == nil)
        let starts = whole.events.compactMap { event -> String? in
            if case .toolCallStart(let id, let name, false) = event { return "\(id) \(name)" }
            return nil
        }
        #expect(starts == ["fc-weather get_weather", "call-1 get_time", "call-2 get_tides"])
        var available: [String: JSONTree] = [:]
        var text: [String: String] = [:]
        for event in whole.events {
            if case .toolInputDelta(let id, let delta) = event { text[id, default: ""] += delta }
            if case .toolInputAvailable(let id, _, let input) = event { available[id] = input }
        }
        #expect(
            available["fc-weather"]
                == [
                    "location": #"San Francisco, "CA""#, "days": 3, "units": ["celsius", "kelvin"],
                    "options": ["hourly": true, "time zone": nil],
                ])
        #expect(available["call-1"] == ["zone": "America/Los_Angeles"])
        // Ended by the finish reason while it still said willContinue.
        #expect(available["call-2"] == ["station": "9414290"])
        for (id, input) in available { #expect(try JSONTree(parsing: text[id] ?? "") == input, "\(id)") }
        #expect(whole.events.suffix(2) == [.finish(reason: .toolCalls, rawReason: "STOP"), .done])
        for chunking in Chunkings.all(of: input) {
            let result = Self.events(chunking.pieces)
            #expect(result.error == nil && result.events == whole.events, "\(chunking)")
        }
    }

    @Test func theAssembledCallHasItsRealInputNotAnEmptyObject() throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture)))
        let lines = replay([input], format: .jsonArray)
        #expect(lines.error == nil)
        #expect(lines.lines.first?.contains(#""input":{"location":"San Francisco, \"CA\"","#) == true)
        #expect(lines.lines.first?.contains(#""input":{}"#) == false)
    }

    @Test func textEndsAStreamedCallAndItsLaterPiecesAreMalformedNamingTheField() {
        let text = #"""
            [{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}
            ,{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","numberValue":1}],"willContinue":true}}]}}]}
            ,{"candidates":[{"content":{"parts":[{"text":"then text"}]}}]}
            ,{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.b","numberValue":2}]}}]}}]}
            ]
            """#
        let result = Self.events([Array(text.utf8)])
        #expect(result.events.contains(.toolInputAvailable(id: "call-0", name: "f", input: ["a": 1])))
        #expect(result.error?.kind == .malformed)
        #expect(result.error?.field == "candidates[0].content.parts.functionCall.name")
        // Text that came before the error is kept.
        #expect(result.events.contains(.textDelta(id: "text-0", delta: "then text")))
    }

    @Test func aPartialArgumentWithoutAUsablePathIsMalformedNamingIt() {
        let text = #"""
            [{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$[*]","stringValue":"x"}]}}]}}]}]
            """#
        let result = Self.events([Array(text.utf8)])
        #expect(result.error?.kind == .malformed)
        #expect(result.error?.field == "candidates[0].content.parts.functionCall.partialArgs.jsonPath")
    }

    @Test func aStreamCutWhileACallStreamsIsTruncatedAndKeepsTheInputSoFar() {
        let text = #"""
            [{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}
            ,{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Ly","willContinue":true}],"willContinue":true}}]}}]}
            """#
        var decoder = MessageDecoder<GeminiDialect>()
        try? decoder.feed(Array(text.utf8))
        let message = decoder.finish()[0]
        #expect(decoder.failure?.kind == .truncated)
        guard case .toolCall(let call)? = message.parts.first else {
            Issue.record("no tool call: \(message.parts)")
            return
        }
        #expect(call.state == .streaming)
        #expect(call.input == ["city": "Ly"])
    }
}
