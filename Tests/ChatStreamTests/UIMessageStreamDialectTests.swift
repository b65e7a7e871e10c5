import Foundation
import TestSupport
import Testing

@testable import ChatStream

@Suite(.blockingAllowed) struct UIMessageStreamDialectTests {
    func events(_ text: String) throws -> [StreamEvent] {
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        return try decoder.feed(Array(text.utf8)) + decoder.finish()
    }

    @Test func conversationIsAssignedOnceFromWhicheverChunkRevealsItFirst() throws {
        let stream = """
            data: {"type":"start","messageMetadata":{"conversationId":"c1"}}

            data: {"type":"message-metadata","messageMetadata":{"conversationId":"c1"}}

            data: {"type":"finish","messageMetadata":{"conversationId":"c1","finishReason":"stop"}}

            data: [DONE]


            """
        let assigned = try events(stream).filter {
            if case .conversationAssigned = $0 { return true } else { return false }
        }
        #expect(assigned == [.conversationAssigned(id: "c1")])
    }

    @Test func finishReasonComesFromMessageMetadataWhenAbsentAtTopLevel() throws {
        let stream =
            "data: {\"type\":\"finish\",\"messageMetadata\":{\"finishReason\":\"tool-calls\"}}\n\ndata: [DONE]\n\n"
        #expect(try events(stream).contains(.finish(reason: .toolCalls, rawReason: "tool-calls")))
    }

    @Test func unknownChunkTypesAreKeptWholeAndCounted() throws {
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        let stream =
            "data: {\"type\":\"brand-new\",\"x\":1}\n\ndata: {\"type\":\"text-delta\",\"delta\":\"a\"}\n\ndata: [DONE]\n\n"
        let decoded = try decoder.feed(Array(stream.utf8)) + decoder.finish()
        #expect(decoder.unknownUnitCount == 1)
        #expect(
            decoded == [
                .unknown(type: "brand-new", raw: ["type": "brand-new", "x": 1]), .textDelta(id: "text-0", delta: "a"),
                .done,
            ])
    }

    @Test func bothChatbaseErrorShapesDecode() throws {
        let stream = """
            data: {"type":"error","errorText":"plain"}

            data: {"type":"error","error":{"code":"CHAT_STREAMING_ERROR","message":"nested"}}

            data: [DONE]


            """
        let errors = try events(stream).compactMap { if case .error(let info) = $0 { return info } else { return nil } }
        #expect(
            errors == [
                StreamErrorInfo(message: "plain"), StreamErrorInfo(code: "CHAT_STREAMING_ERROR", message: "nested"),
            ])
    }

    @Test func missingRequiredFieldNamesEventFieldAndOffset() throws {
        let stream = "data: {\"type\":\"start\"}\n\ndata: {\"type\":\"tool-input-delta\",\"toolCallId\":\"c\"}\n\n"
        let error = #expect(throws: StreamError.self) { try events(stream) }
        #expect(error?.kind == .malformed)
        #expect(error?.byteOffset == 30)  // where the data of the second event begins
        #expect(error?.eventType == "tool-input-delta")
        #expect(error?.field == "inputTextDelta")
    }

    @Test func streamWithoutDoneIsTruncatedButEventsBeforeItArrive() throws {
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        let decoded = try decoder.feed(Array("data: {\"type\":\"text-delta\",\"delta\":\"x\"}\n\n".utf8))
        #expect(decoded == [.textDelta(id: "text-0", delta: "x")])
        #expect((#expect(throws: StreamError.self) { try decoder.finish() })?.kind == .truncated)
    }

    /// The AI SDK's own writer output (../shared/captures/vercel-ai-ui-message-stream), read in place.
    @Test(arguments: ["sdkgen_text", "sdkgen_tool_roundtrip", "sdkgen_error_masked"])
    func sdkCapturesDecodeToTheirContentAtEveryChunking(_ name: String) throws {
        let path = ProjectPaths.shared + "/captures/vercel-ai-ui-message-stream/\(name).sse"
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // Independent oracle: Foundation reads each data line.
        var oracleText = ""
        var oracleTools: [String] = []
        var oracleError: String? = nil
        var oracleFinish: String? = nil
        for line in String(decoding: input, as: UTF8.self).split(separator: "\n") where line.hasPrefix("data: {") {
            let object = try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as! [String: Any]
            switch object["type"] as? String {
            case "text-delta": oracleText += object["delta"] as! String
            case "tool-input-available": oracleTools.append(object["toolName"] as! String)
            case "error": oracleError = object["errorText"] as? String
            case "finish": oracleFinish = object["finishReason"] as? String
            default: break
            }
        }
        var reference: [String]? = nil
        for chunking in Chunkings.all(of: input) {
            let result = replay(chunking.pieces, format: nil)
            #expect(result.error == nil)
            if reference == nil { reference = result.lines } else { #expect(result.lines == reference, "\(chunking)") }
        }
        var decoder = AnyStreamDecoder(format: nil)
        var assembler = MessageAssembler()
        try decoder.feed(input, into: &assembler)
        try decoder.finish(into: &assembler)
        #expect(decoder.format == .uiMessageStream)
        let message = assembler.finish()[0]
        #expect(message.text == oracleText)
        #expect(message.toolCalls.map(\.toolName) == oracleTools)
        #expect(message.error?.message == oracleError)
        #expect(message.rawFinishReason == oracleFinish)
        if name == "sdkgen_tool_roundtrip" {
            #expect(message.toolCalls.first?.input == ["value": "value"])
            #expect(
                message.parts.contains {
                    if case .toolResult(let r) = $0 { return r.output == "value-result" } else { return false }
                })
        }
    }
}
