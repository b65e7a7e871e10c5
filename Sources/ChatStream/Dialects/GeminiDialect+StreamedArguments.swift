// Gemini's streamed function-call arguments (`functionCallingConfig.streamFunctionCallArguments`,
// Vertex AI and Gemini 3): one call spread over several elements.
//
//   {"functionCall":{"name":"get_weather","willContinue":true}}
//   {"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"Par","willContinue":true}],"willContinue":true}}
//   {"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"is"}],"willContinue":true}}
//   {"functionCall":{"partialArgs":[{"jsonPath":"$.days","numberValue":3}]}}
//
// The first element names the call (and may carry `id`); later ones carry no `name`, only
// `partialArgs` (leaves addressed by JSON path, see PathAddressedInput) and, while more follows,
// `willContinue: true`. The call ends at the first functionCall element without `willContinue`
// (often an empty `{"functionCall":{}}`), at a call with a name (a new call), at text, or at the
// finish reason. Its input streams as the JSON text the leaves write (`toolInputDelta` per
// piece) and ends as the value they build (`toolInputAvailable`). The field names are Google's
// public reference (`FunctionCall.partial_args`, `will_continue`; `PartialArg.json_path`,
// `string_value`, `number_value`, `bool_value`, `null_value`, `will_continue`).

import ChatStreamJSON

extension GeminiDialect {
    /// A function call whose arguments are streaming.
    struct StreamedCall {
        var id: String
        var name: String
        var input = PathAddressedInput()
    }

    /// A part's `functionCall`: a whole call, the start of a streamed one, or more of the
    /// streamed one that is open.
    mutating func functionCall(
        _ call: JSONElement, offset: Int, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        let partialArgs = call["partialArgs"]
        let continues = call["willContinue"]?.bool == true
        guard let name = call["name"]?.string, !name.isEmpty else {
            // More of the open call; without one, a nameless call is malformed (an empty one ends
            // nothing and is skipped).
            guard streamedCall != nil else {
                if call.count == 0 {
                    // `{"functionCall":{}}`: the end of a call already ended (by text, say).
                    unknownUnitCount += 1
                    return
                }
                throw StreamError(
                    .malformed, message: "a functionCall without a name, and no streamed call is open",
                    byteOffset: offset, eventType: "GenerateContentResponse",
                    field: "candidates[0].content.parts.functionCall.name")
            }
            try streamArguments(partialArgs, offset: offset, emit: emit)
            if !continues { try endStreamedCall(emit: emit) }
            return
        }
        if streamedCall != nil { try endStreamedCall(emit: emit) }
        try parts.closeAll(textDelta: textDelta, emit: emit)
        let id = call["id"]?.string ?? "call-\(toolCallCount)"
        toolCallCount += 1
        try emit(.toolCallStart(id: id, name: name, providerExecuted: false))
        guard continues || partialArgs != nil else {
            return try emitWholeToolInput(
                id: id, name: name, arguments: call["args"], parser: inputParser, textDelta: textDelta, emit: emit)
        }
        streamedCall = StreamedCall(id: id, name: name)
        try streamArguments(partialArgs, offset: offset, emit: emit)
        if !continues { try endStreamedCall(emit: emit) }
    }

    /// Applies a `partialArgs` array to the open call, emitting the input text each entry adds.
    private mutating func streamArguments(_ partialArgs: JSONElement?, offset: Int, emit: EventSink) throws {
        guard let partialArgs, !partialArgs.isNull, var call = streamedCall else { return }
        let field = "candidates[0].content.parts.functionCall.partialArgs"
        guard partialArgs.kind == .array else {
            throw StreamError(
                .malformed, message: "\"partialArgs\" is not an array", byteOffset: offset,
                eventType: "GenerateContentResponse", field: field)
        }
        var text = ""
        try partialArgs.forEachElement { entry in
            guard let pathText = entry["jsonPath"]?.string, let path = JSONPathStep.steps(of: pathText) else {
                throw StreamError(
                    .malformed, message: "a partial argument without a JSON path of members and indices",
                    byteOffset: offset, eventType: "GenerateContentResponse", field: field + ".jsonPath")
            }
            let leaf: JSONTree
            if let value = entry["stringValue"], value.kind == .string {
                leaf = value.jsonValue
            } else if let value = entry["numberValue"], value.kind == .number {
                leaf = value.jsonValue
            } else if let value = entry["boolValue"], let bool = value.bool {
                leaf = .bool(bool)
            } else if entry["nullValue"] != nil {
                leaf = .null
            } else {
                // A path with no value yet (the piece that follows carries it).
                return
            }
            text += call.input.set(path, to: leaf, continues: entry["willContinue"]?.bool == true)
        }
        streamedCall = call
        if !text.isEmpty { try emit(.toolInputDelta(id: call.id, delta: text)) }
    }

    /// Ends the open streamed call: the text that closes its input, then the input.
    mutating func endStreamedCall(emit: EventSink) throws {
        guard var call = streamedCall else { return }
        streamedCall = nil
        let text = call.input.finish()
        if !text.isEmpty { try emit(.toolInputDelta(id: call.id, delta: text)) }
        try emit(.toolInputAvailable(id: call.id, name: call.name, input: call.input.value))
    }
}
