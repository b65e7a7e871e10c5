// Payloads in the other four formats: one text reply of one-to-three-word deltas, as OpenAI
// Responses, the AI SDK v4 data stream, Ollama and Gemini send it. Seeded like the rest; each
// comes with the text it must assemble to and the byte range of every unit's JSON (what the
// ceilings are fed: the `data:` value, the JSON after `N:`, the NDJSON line without its newline,
// the array element without the separators around it).

extension Payloads {
    /// One unit on the wire: the framing before its JSON, the JSON, the framing after it.
    struct WireUnit {
        var before: String
        var json: String
        var after: String
    }

    /// `head`, one unit per delta of one to three words (`delta` gets the JSON-escaped text and
    /// the delta's ordinal), then `tail` (given the number of deltas).
    static func textReply(
        _ name: String, targetBytes: Int, seed: UInt64, head: [WireUnit], delta: (String, Int) -> WireUnit,
        tail: (Int) -> [WireUnit]
    ) -> StreamPayload {
        var random = SeededGenerator(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(targetBytes + 1024)
        var ranges: [(Int, Int)] = []
        var expected = ""
        var deltas = 0
        func add(_ unit: WireUnit) {
            out += unit.before.utf8
            ranges.append((out.count, unit.json.utf8.count))
            out += unit.json.utf8
            out += unit.after.utf8
        }
        for unit in head { add(unit) }
        while out.count < targetBytes {
            var text = ""
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                text += words[Int.random(in: 0..<words.count, using: &random)] + " "
            }
            expected += text
            deltas += 1
            add(delta(jsonEscaped(text, unicodeEscapes: deltas % 50 == 0), deltas))
        }
        for unit in tail(deltas) { add(unit) }
        return StreamPayload(
            name: name, bytes: out, jsonRanges: ranges, eventCount: ranges.count, expectedText: expected,
            textDeltaCount: deltas)
    }

    /// OpenAI Responses events with `event:` lines (~190 bytes a delta). The `.done` events leave
    /// out the whole text the API repeats in them, so the deltas are the stream.
    static func responsesEvents(targetBytes: Int, seed: UInt64 = 45) -> StreamPayload {
        func event(_ type: String, _ number: Int, _ fields: String) -> WireUnit {
            WireUnit(
                before: "event: \(type)\ndata: ",
                json: "{\"type\":\"\(type)\",\"sequence_number\":\(number),\(fields)}",
                after: "\n\n")
        }
        let response = #""id":"resp_68af4c2e1b7081a2b0b6c3f54d9e0a17","object":"response","model":"gpt-4.1-2025-04-14""#
        let item = #""item_id":"msg_68af4c2f5d6c81a28e1f0d4b7a93c2e5","output_index":0"#
        return textReply(
            "openai-responses", targetBytes: targetBytes, seed: seed,
            head: [
                event("response.created", 0, #""response":{\#(response),"status":"in_progress","output":[]}"#),
                event(
                    "response.output_item.added", 1,
                    #""output_index":0,"item":{"id":"msg_68af4c2f5d6c81a28e1f0d4b7a93c2e5","type":"message","status":"in_progress","content":[],"role":"assistant"}"#
                ),
                event("response.content_part.added", 2, item + #","content_index":0,"part":{"type":"output_text"}"#),
            ],
            delta: { text, n in
                event(
                    "response.output_text.delta", n + 2, item + #","content_index":0,"delta":"\#(text)","logprobs":[]"#)
            },
            tail: { n in
                [
                    event("response.output_text.done", n + 3, item + #","content_index":0"#),
                    event(
                        "response.completed", n + 4,
                        #""response":{\#(response),"status":"completed","usage":{"input_tokens":12,"output_tokens":\#(n)}}"#
                    ),
                ]
            })
    }

    /// AI SDK v4 data stream parts (`0:"text"` lines, ~20 bytes a delta).
    static func dataStreamV4Parts(targetBytes: Int, seed: UInt64 = 46) -> StreamPayload {
        textReply(
            "ai-sdk-v4", targetBytes: targetBytes, seed: seed,
            head: [WireUnit(before: "f:", json: #"{"messageId":"msg-7f3a9c2e1b"}"#, after: "\n")],
            delta: { text, _ in WireUnit(before: "0:", json: #""\#(text)""#, after: "\n") },
            tail: { n in
                [
                    WireUnit(
                        before: "e:",
                        json:
                            #"{"finishReason":"stop","usage":{"promptTokens":12,"completionTokens":\#(n)},"isContinued":false}"#,
                        after: "\n"),
                    WireUnit(
                        before: "d:",
                        json: #"{"finishReason":"stop","usage":{"promptTokens":12,"completionTokens":\#(n)}}"#,
                        after: "\n"),
                ]
            })
    }

    /// Ollama `/api/chat` lines (~120 bytes a delta), the last with `done` and its counts.
    static func ollamaLines(targetBytes: Int, seed: UInt64 = 47) -> StreamPayload {
        let head = #"{"model":"llama3.2","created_at":"2025-01-01T00:00:00.000000Z","message":{"role":"assistant","#
        return textReply(
            "ndjson", targetBytes: targetBytes, seed: seed, head: [],
            delta: { text, _ in WireUnit(before: "", json: head + #""content":"\#(text)"},"done":false}"#, after: "\n")
            },
            tail: { n in
                [
                    WireUnit(
                        before: "",
                        json: head + #""content":""},"done":true,"done_reason":"stop","total_duration":5000,"#
                            + #""prompt_eval_count":26,"eval_count":\#(n),"eval_duration":4000}"#,
                        after: "\n")
                ]
            })
    }

    /// A Gemini streamed array (~190 bytes a delta), usage on every element as Gemini sends it:
    /// `[` element (`\r\n,` element)* `]`.
    static func geminiArray(targetBytes: Int, seed: UInt64 = 48) -> StreamPayload {
        func element(_ text: String, _ finish: String, _ usage: String) -> String {
            #"{"candidates":[{"content":{"parts":[{"text":"\#(text)"}],"role":"model"}\#(finish),"index":0}],"#
                + #""usageMetadata":{\#(usage)},"modelVersion":"gemini-2.0-flash","responseId":"Wq3aaPPOGu6vz7IP"}"#
        }
        return textReply(
            "json-array", targetBytes: targetBytes, seed: seed, head: [],
            delta: { text, n in
                WireUnit(before: n == 1 ? "[" : "\r\n,", json: element(text, "", #""promptTokenCount":9"#), after: "")
            },
            tail: { n in
                [
                    WireUnit(
                        before: "\r\n,",
                        json: element(
                            "", #","finishReason":"STOP""#, #""promptTokenCount":9,"candidatesTokenCount":\#(n)"#),
                        after: "]")
                ]
            })
    }
}
