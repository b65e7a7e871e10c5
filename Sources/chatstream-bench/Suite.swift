// Suite: every measurement of one invocation, and the ratios the report prints.

import ChatStream
import ChatStreamBenchSupport
import ChatStreamJSON
import Foundation

/// One measured row.
struct Row {
    var group: String
    var name: String
    var bytes: Int
    var events: Int
    var measurement: Measurement

    var seconds: Double { measurement.median }
    var megabytesPerSecond: Double { Double(bytes) / 1e6 / seconds }
    var eventsPerSecond: Double { Double(events) / seconds }
    var allocationsPerEvent: Double { Double(measurement.allocations) / Double(max(1, events)) }
}

struct Target {
    var name: String
    var figure: Double
    var limit: Double
    var atLeast: Bool
    var holds: Bool { atLeast ? figure >= limit : figure <= limit }
}

final class Suite {
    let options: Options
    var rows: [Row] = []
    var ratios: [(String, Double)] = []
    var targets: [Target] = []
    var notes: [String] = []
    var gigabyte: GigabyteResult?

    init(options: Options) { self.options = options }

    func progress(_ text: String) {
        if !options.json { FileHandle.standardError.write(Data("  \(text)\n".utf8)) }
    }

    @discardableResult
    func add(_ group: String, _ name: String, bytes: Int, events: Int, expect: Int? = nil, _ body: () -> Int) -> Row {
        progress("\(group): \(name)")
        let measurement = measure(runs: options.runs, body)
        if let expect, measurement.result != expect {
            fatalError("\(group) \(name): got \(measurement.result), expected \(expect)")
        }
        let row = Row(group: group, name: name, bytes: bytes, events: events, measurement: measurement)
        rows.append(row)
        return row
    }

    /// Measures a group's rows round-robin (``measureRoundRobin(runs:_:)``: one run of every row
    /// per round, in the order given) and checks each result; returns the rows in that order
    /// without adding them, so the caller shows them in its own order.
    func measureGroup(
        _ group: String, bytes: Int, events: Int, _ specs: [(name: String, expect: Int?, body: () -> Int)]
    ) -> [Row] {
        progress("\(group): \(specs.count) rows, round-robin")
        let measurements = measureRoundRobin(runs: options.runs, specs.map(\.body))
        return zip(specs, measurements).map { spec, measurement in
            if let expect = spec.expect, measurement.result != expect {
                fatalError("\(group) \(spec.name): got \(measurement.result), expected \(expect)")
            }
            return Row(group: group, name: spec.name, bytes: bytes, events: events, measurement: measurement)
        }
    }

    func run() {
        let runs = options.runs
        if options.gigabyte ?? false {
            progress("1 GiB stream (in a child process, so peak memory is its own)")
            gigabyte = GigabyteResult.runInChild()
        }

        // Home protocol text deltas.
        let home = Payloads.homeTextDeltas(targetBytes: options.quick ? 1_000_000 : 8_000_000)
        let bytes = home.bytes
        let n = home.eventCount
        // Check before timing: every path must produce the right output.
        Suite.checkJSONRanges(home)
        for chunk in [64, 4096, nil] as [Int?] {
            precondition(Pipelines.assembledText(bytes, chunk: chunk) == home.expectedText, "assembled text differs")
            precondition(
                Pipelines.messageDecoderText(bytes, chunk: chunk, dialect: UIMessageStreamDialect.self)
                    == home.expectedText, "MessageDecoder text differs")
            let detected = Pipelines.anyMessageDecoderText(bytes, chunk: chunk, format: nil)
            precondition(
                detected.text == home.expectedText && detected.format == .uiMessageStream,
                "AnyMessageDecoder (detecting) text or format differs")
        }
        let typedExpected = Pipelines.typedEvents(bytes, chunk: nil)
        let group = "home text deltas (\(bytes.count / 1000) kB, \(n) events)"
        let lex = add(group, "ceiling: yajl, NULL callbacks", bytes: bytes.count, events: n) {
            Ceilings.yajlLexOnly(home)
        }
        let copy = add(group, "ceiling: yajl copying strings (copy ceiling)", bytes: bytes.count, events: n) {
            Ceilings.yajlCopy(home)
        }
        add(group, "ceiling: newline scan (memchr)", bytes: bytes.count, events: n) { Ceilings.newlineScan(bytes) }
        let decoderRow = add(group, "peers: line split + JSONDecoder", bytes: bytes.count, events: n) {
            Peers.jsonDecoder(bytes)
        }
        add(group, "peers: line split + JSONSerialization", bytes: bytes.count, events: n) {
            Peers.jsonSerialization(bytes)
        }
        var ours: [Row] = []
        for (label, chunk) in [("64 B", 64), ("4 KiB", 4096), ("whole", nil)] as [(String, Int?)] {
            ours.append(
                add(group, "ours: bytes -> SSE events, \(label) chunks", bytes: bytes.count, events: n) {
                    Pipelines.serverSentEvents(bytes, chunk: chunk)
                })
            ours.append(
                add(
                    group, "ours: bytes -> typed events, \(label) chunks", bytes: bytes.count, events: n,
                    expect: typedExpected
                ) {
                    Pipelines.typedEvents(bytes, chunk: chunk)
                })
            ours.append(
                add(
                    group, "ours: bytes -> typed events, lent text (a sink), \(label) chunks",
                    bytes: bytes.count, events: n, expect: typedExpected
                ) {
                    Pipelines.typedViews(bytes, chunk: chunk)
                })
            ours.append(
                add(group, "ours: bytes -> assembled message, \(label) chunks", bytes: bytes.count, events: n) {
                    Pipelines.assembled(bytes, chunk: chunk)
                })
            ours.append(
                add(group, "ours: bytes -> message (MessageDecoder), \(label) chunks", bytes: bytes.count, events: n) {
                    Pipelines.messageDecoder(bytes, chunk: chunk, dialect: UIMessageStreamDialect.self)
                })
            if chunk == 4096 {
                // The same, with the format detected from the first bytes and the decoder picked at
                // run time: what detection and dispatch cost.
                ours.append(
                    add(
                        group, "ours: bytes -> message (AnyMessageDecoder, detected), 4 KiB chunks", bytes: bytes.count,
                        events: n, expect: home.expectedText.utf8.count
                    ) {
                        Pipelines.anyMessageDecoder(bytes, chunk: 4096, format: nil)
                    })
            }
        }
        for row in ours {
            ratios.append(("\(row.name) / yajl NULL callbacks", lex.seconds / row.seconds))
            ratios.append(("\(row.name) / copy ceiling", copy.seconds / row.seconds))
            ratios.append(("\(row.name) / JSONDecoder", decoderRow.seconds / row.seconds))
        }
        let typed4k = ours.first { $0.name == "ours: bytes -> typed events, 4 KiB chunks" }!
        let views4k = ours.first { $0.name == "ours: bytes -> typed events, lent text (a sink), 4 KiB chunks" }!
        let assembled4k = ours.first { $0.name == "ours: bytes -> assembled message, 4 KiB chunks" }!
        let message4k = ours.first { $0.name == "ours: bytes -> message (MessageDecoder), 4 KiB chunks" }!
        // The time targets use paired runs (baseline and ours alternately, median of the pair
        // ratios): on a shared machine that is what keeps one slow moment from deciding. Fifteen
        // pairs at least: with nine, the medians of three invocations in a row spread by 0.05.
        let pairs = max(runs, 15)
        progress("\(group): paired runs for the targets")
        let typedVsCopy = pairedRatio(
            runs: pairs, baseline: { Ceilings.yajlCopy(home) }, ours: { Pipelines.typedEvents(bytes, chunk: 4096) })
        let viewsVsCopy = pairedRatio(
            runs: pairs, baseline: { Ceilings.yajlCopy(home) }, ours: { Pipelines.typedViews(bytes, chunk: 4096) })
        let viewsVsDecoder = pairedRatio(
            runs: pairs, baseline: { Peers.jsonDecoder(bytes) }, ours: { Pipelines.typedViews(bytes, chunk: 4096) })
        let typedVsDecoder = pairedRatio(
            runs: pairs, baseline: { Peers.jsonDecoder(bytes) },
            ours: { Pipelines.typedEvents(bytes, chunk: 4096) })
        let assembledVsCopy = pairedRatio(
            runs: pairs, baseline: { Ceilings.yajlCopy(home) }, ours: { Pipelines.assembled(bytes, chunk: 4096) })
        let messageVsCopy = pairedRatio(
            runs: pairs, baseline: { Ceilings.yajlCopy(home) },
            ours: { Pipelines.messageDecoder(bytes, chunk: 4096, dialect: UIMessageStreamDialect.self) })
        // Detection and dispatch: AnyMessageDecoder against the copy ceiling, as MessageDecoder's
        // target is taken, and against the MessageDecoder it picks.
        let detectedVsCopy = pairedRatio(
            runs: pairs, baseline: { Ceilings.yajlCopy(home) },
            ours: { Pipelines.anyMessageDecoder(bytes, chunk: 4096, format: nil) })
        let detectedVsMessage = pairedRatio(
            runs: pairs,
            baseline: { Pipelines.messageDecoder(bytes, chunk: 4096, dialect: UIMessageStreamDialect.self) },
            ours: { Pipelines.anyMessageDecoder(bytes, chunk: 4096, format: nil) })
        ratios.append(("paired: typed events, lent text (a sink), 4 KiB / copy ceiling", viewsVsCopy))
        ratios.append(("paired: typed events, lent text (a sink), 4 KiB / JSONDecoder", viewsVsDecoder))
        ratios.append(("paired: typed events, 4 KiB / copy ceiling", typedVsCopy))
        ratios.append(("paired: typed events, 4 KiB / JSONDecoder", typedVsDecoder))
        ratios.append(("paired: assembled message, 4 KiB / copy ceiling", assembledVsCopy))
        ratios.append(("paired: message (MessageDecoder), 4 KiB / copy ceiling", messageVsCopy))
        ratios.append(("paired: message (AnyMessageDecoder, detected), 4 KiB / copy ceiling", detectedVsCopy))
        ratios.append(("paired: message (AnyMessageDecoder, detected) / MessageDecoder, 4 KiB", detectedVsMessage))
        // bytes -> typed events: a sink (`feed(_:into:)`) is the library's fastest way to read events (text
        // deltas lent, as the copy ceiling's arena holds its strings); owned `StreamEvent`s, which
        // make a `String` per delta, are reported beside it and must beat JSONDecoder as well.
        targets.append(
            Target(
                name: "typed events, lent (a sink, 4 KiB) / copy ceiling", figure: viewsVsCopy, limit: 0.8,
                atLeast: true))
        targets.append(
            Target(
                name: "typed events, lent (a sink, 4 KiB) / JSONDecoder", figure: viewsVsDecoder, limit: 8,
                atLeast: true))
        targets.append(
            Target(name: "typed events, owned (4 KiB) / JSONDecoder", figure: typedVsDecoder, limit: 8, atLeast: true))
        // bytes -> assembled message: MessageDecoder is the library's way from bytes to the
        // message; the event-by-event row (what a UI that shows every delta does) is reported beside it.
        targets.append(
            Target(
                name: "assembled, MessageDecoder (4 KiB) / copy ceiling", figure: messageVsCopy, limit: 0.7,
                atLeast: true))
        targets.append(
            Target(
                name: "allocations per event, typed, lent (4 KiB)", figure: views4k.allocationsPerEvent, limit: 2,
                atLeast: false))
        targets.append(
            Target(
                name: "allocations per event, typed, owned (4 KiB)", figure: typed4k.allocationsPerEvent, limit: 2,
                atLeast: false))
        targets.append(
            Target(
                name: "allocations per event, assembled (4 KiB)", figure: assembled4k.allocationsPerEvent, limit: 2,
                atLeast: false))
        targets.append(
            Target(
                name: "allocations per event, MessageDecoder (4 KiB)", figure: message4k.allocationsPerEvent,
                limit: 2, atLeast: false))

        // Provider streams (Suite+Dialects.swift): the same ceilings, a JSONDecoder peer, and ours
        // at 4 KiB chunks, on streams as long as the home one.
        addDialects(targetBytes: options.quick ? 1_000_000 : 8_000_000)

        // Streamed tool input, one byte per delta.
        let sizes = options.quick ? [10_000, 20_000] : [100_000, 200_000]
        var toolPayloads: [[UInt8]] = []
        for size in sizes {
            let (tool, input) = Payloads.toolInputStream(inputBytes: size)
            toolPayloads.append(tool.bytes)
            let expected = try! JSONParser().parseValue(input.utf8)
            precondition(Pipelines.toolInputValue(tool.bytes) == expected, "tool input differs")
            let reads = Pipelines.toolInput(tool.bytes)
            add(
                "streamed tool input (1-byte deltas)", "ours: \(size) deltas, reading the message after each",
                bytes: tool.bytes.count, events: tool.eventCount, expect: reads
            ) { Pipelines.toolInput(tool.bytes) }
        }
        // The target pairs the two sizes run by run (median of the pair ratios), as the other
        // time targets do; here "baseline" is the larger input, so the ratio is large / small.
        progress("streamed tool input: paired runs for the target")
        let toolRatio = pairedRatio(
            runs: max(runs, 9), baseline: { Pipelines.toolInput(toolPayloads[1]) },
            ours: { Pipelines.toolInput(toolPayloads[0]) })
        ratios.append(("tool input: time for \(sizes[1]) / time for \(sizes[0]) deltas", toolRatio))
        targets.append(
            Target(
                name: "tool input time \(sizes[1]) / \(sizes[0]) deltas", figure: toolRatio, limit: 2.3, atLeast: false)
        )

        // A history page of 100 messages, parsed 100 times per run.
        let page = Payloads.historyPage(count: 100)
        let repeats = options.quick ? 20 : 100
        let parser = JSONParser()
        precondition(Pipelines.historyPage(parser, page) == 100 && Peers.historyPage(page) == 100)
        let historyGroup = "history page (100 messages, \(page.count / 1000) kB) x \(repeats)"
        let ourPage = add(historyGroup, "ours: JSONParser -> JSONTree", bytes: page.count * repeats, events: repeats) {
            (0..<repeats).reduce(0) { sum, _ in sum + Pipelines.historyPage(parser, page) }
        }
        let theirPage = add(historyGroup, "peers: JSONDecoder -> Codable", bytes: page.count * repeats, events: repeats)
        {
            (0..<repeats).reduce(0) { sum, _ in sum + Peers.historyPage(page) }
        }
        ratios.append(("history page: JSONParser -> JSONTree / JSONDecoder", theirPage.seconds / ourPage.seconds))

        if let gigabyte {
            targets.append(
                Target(
                    name: "1 GiB stream peak memory (MiB)", figure: Double(gigabyte.peakResidentBytes) / 1_048_576,
                    limit: 64,
                    atLeast: false))
        } else {
            notes.append("1 GiB stream: not run (pass --gigabyte; it takes over a minute here)")
        }
        _ = runs
    }
}
