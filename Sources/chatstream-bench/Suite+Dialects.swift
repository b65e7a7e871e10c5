// Suite+Dialects: the provider streams' rows. Every format ChatStream decodes besides the home
// protocol gets the same group: both ceilings fed exactly the stream's JSON payloads, a
// JSONDecoder peer that frames the stream as a Swift client of that format would, and ours
// (typed events owned and lent, event-by-event assembly and MessageDecoder) at 4 KiB chunks, each checked.
// A group's rows are measured round-robin and each ratio is the median of its rounds' ratios:
// on a shared machine that pairs them as the home group's paired runs do, at no extra cost.

import ChatStream
import ChatStreamJSON

extension Suite {
    /// The groups of the six provider streams, each `targetBytes` long.
    func addDialects(targetBytes: Int) {
        addDialect(
            "OpenAI chat chunks", "OpenAI chat", Payloads.openAIChatChunks(targetBytes: targetBytes),
            OpenAIChatDialect.self, peer: Peers.jsonDecoderOpenAIChat)
        addDialect(
            "Anthropic events", "Anthropic", Payloads.anthropicEvents(targetBytes: targetBytes), AnthropicDialect.self,
            peer: Peers.jsonDecoderAnthropic)
        addDialect(
            "OpenAI Responses events", "OpenAI Responses", Payloads.responsesEvents(targetBytes: targetBytes),
            OpenAIResponsesDialect.self, peer: Peers.jsonDecoderResponses)
        addDialect(
            "AI SDK v4 data stream parts", "AI SDK v4", Payloads.dataStreamV4Parts(targetBytes: targetBytes),
            DataStreamV4Dialect.self, peerName: "peers: line split + JSONDecoder after `N:`",
            peer: Peers.jsonDecoderDataStreamV4)
        addDialect(
            "Ollama NDJSON lines", "Ollama", Payloads.ollamaLines(targetBytes: targetBytes), OllamaDialect.self,
            peerName: "peers: NDJSON line split + JSONDecoder", peer: Peers.jsonDecoderOllama)
        addDialect(
            "Gemini streamed array", "Gemini", Payloads.geminiArray(targetBytes: targetBytes), GeminiDialect.self,
            peerName: "peers: element-per-line split + JSONDecoder", peer: Peers.jsonDecoderGemini)
    }

    /// Rows for one provider stream: both ceilings, the JSONDecoder peer (`peerName`), and ours
    /// (typed events owned and lent, the assembled message and MessageDecoder, at 4 KiB chunks), with their
    /// ratios prefixed by `short`. Every row's result is checked, so a wrong path fails the run.
    func addDialect<Dialect: StreamDialect>(
        _ title: String, _ short: String, _ payload: StreamPayload, _ dialect: Dialect.Type,
        peerName: String = "peers: line split + JSONDecoder", peer: @escaping ([UInt8]) -> Int
    ) {
        let bytes = payload.bytes
        let n = payload.eventCount
        // Check before timing: the ceilings' ranges and every path's output.
        Suite.checkJSONRanges(payload)
        for chunk in [64, 4096, nil] as [Int?] {
            precondition(
                Pipelines.assembledText(bytes, chunk: chunk, dialect: dialect) == payload.expectedText,
                "\(title): assembled text differs")
            precondition(
                Pipelines.messageDecoderText(bytes, chunk: chunk, dialect: dialect) == payload.expectedText,
                "\(title): MessageDecoder text differs")
        }
        let typedExpected = Pipelines.typedEvents(bytes, chunk: nil, dialect: dialect)
        let peerExpected = payload.jsonRanges.count + payload.expectedText.utf8.count
        let group = "\(title) (\(bytes.count / 1000) kB, \(n) events)"
        // Run order within a round: the ceilings and ours side by side, the slow peer last.
        let measured = measureGroup(
            group, bytes: bytes.count, events: n,
            [
                ("ceiling: yajl, NULL callbacks", nil, { Ceilings.yajlLexOnly(payload) }),
                ("ceiling: yajl copying strings (copy ceiling)", nil, { Ceilings.yajlCopy(payload) }),
                (
                    "ours: bytes -> typed events, 4 KiB chunks", typedExpected,
                    { Pipelines.typedEvents(bytes, chunk: 4096, dialect: dialect) }
                ),
                (
                    "ours: bytes -> typed events, lent text (a sink), 4 KiB chunks", typedExpected,
                    { Pipelines.typedViews(bytes, chunk: 4096, dialect: dialect) }
                ),
                (
                    "ours: bytes -> assembled message, 4 KiB chunks", payload.expectedText.utf8.count,
                    { Pipelines.assembled(bytes, chunk: 4096, dialect: dialect) }
                ),
                (
                    "ours: bytes -> message (MessageDecoder), 4 KiB chunks", payload.expectedText.utf8.count,
                    { Pipelines.messageDecoder(bytes, chunk: 4096, dialect: dialect) }
                ),
                (peerName, peerExpected, { peer(bytes) }),
            ])
        let (lex, copy, decoderRow) = (measured[0], measured[1], measured[6])
        let ours = Array(measured[2...5])
        rows += [lex, copy, decoderRow] + ours
        // Each ratio is the median of its rounds' ratios (``medianRatio(_:_:)``).
        for row in ours {
            ratios.append(
                ("\(short): \(row.name) / yajl NULL callbacks", medianRatio(lex.measurement, row.measurement)))
            ratios.append(("\(short): \(row.name) / copy ceiling", medianRatio(copy.measurement, row.measurement)))
            ratios.append(("\(short): \(row.name) / JSONDecoder", medianRatio(decoderRow.measurement, row.measurement)))
        }
    }

    /// Checks that the ceilings are fed exactly the stream's JSON: each range, in order and
    /// apart, starts and ends a value (no framing byte inside it) and parses as one JSON value.
    static func checkJSONRanges(_ payload: StreamPayload) {
        let parser = JSONParser()
        var previousEnd = 0
        payload.bytes.withUnsafeBytes { raw in
            for (offset, length) in payload.jsonRanges {
                precondition(
                    offset >= previousEnd && length > 0 && offset + length <= raw.count,
                    "\(payload.name): JSON range at \(offset) out of order")
                let first = raw[offset]
                let last = raw[offset + length - 1]
                precondition(
                    (first == UInt8(ascii: "{") && last == UInt8(ascii: "}"))
                        || (first == UInt8(ascii: "\"") && last == UInt8(ascii: "\""))
                        || (first == UInt8(ascii: "[") && last == UInt8(ascii: "]")),
                    "\(payload.name): JSON range at \(offset) does not hold exactly one value")
                do {
                    _ = try parser.parseValue(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]))
                } catch {
                    preconditionFailure("\(payload.name): JSON range at \(offset) does not parse: \(error)")
                }
                previousEnd = offset + length
            }
        }
    }
}
