// chatstream-bench: ChatStream's benchmark suite. See BENCHMARKS.md.
//
//   swift run -c release chatstream-bench [--json] [--runs N] [--quick] [--gigabyte | --no-gigabyte]
//   swift run -c release chatstream-bench --check-allocations Fixtures/allocation-limits.json
//   swift run -c release chatstream-bench --write-payload FORMAT PATH
//   swift run -c release chatstream-bench --snapshot-scaling [--runs N]
//   swift run -c release chatstream-bench --simdjson [--runs N] [--quick]
//   swift run -c release chatstream-bench --report [--json] [--quick] [--runs N] [--message-mib N] [--load-seconds N]
//                                             [--default-priority]
//   swift run -c release chatstream-bench --report-22 [--json] [--quick] [--runs N] [--no-valgrind]

import ChatStream
import ChatStreamBenchSupport
import ChatStreamJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
if options.gigabyteOnly {
    print(Gigabyte.run().line)
    exit(0)
}
if options.serveChild {
    exit(ServerProcess.serveUntilInputCloses())
}
if options.report {
    let priority = options.defaultPriority ? "default priority (--default-priority)" : BenchPriority.raise()
    let report = await IssueReport.run(options: options, priority: priority)
    if options.json { report.printJSON() } else { report.printTable() }
    exit(report.measuredEverything ? 0 : 1)
}
if options.report22 {
    let report = await RatioReport.run(options: options)
    if options.json { report.printJSON() } else { report.printTable() }
    exit(0)
}
if options.simdjson {
    exit(SimdjsonColumn.run(options: options))
}
if let (format, path) = options.ceilingFile {
    exit(SimdjsonColumn.ceilingFile(format: format, path: path))
}
if let (format, path) = options.decodeFile {
    exit(SimdjsonColumn.decodeFile(format: format, path: path, tool: options.tool))
}
if let (format, path) = options.writePayload {
    exit(PayloadFile.write(format: format, path: path))
}
if options.snapshotScaling {
    print(try await SnapshotScaling.report(runs: options.runs))
    exit(0)
}
if let path = options.checkAllocations {
    exit(AllocationCheck.run(limitsPath: path))
}
if let path = options.profile {
    let home = Payloads.homeTextDeltas(targetBytes: 1_000_000)
    let before = Allocations.count
    switch path {
    case "none": break  // the payload's generation only: subtract it from whole-program counts
    case "sse": blackHole(Pipelines.serverSentEvents(home.bytes, chunk: 4096))
    case "typed": blackHole(Pipelines.typedEvents(home.bytes, chunk: 4096))
    case "typed-views": blackHole(Pipelines.typedViews(home.bytes, chunk: 4096))
    case "typed-whole": blackHole(Pipelines.typedEvents(home.bytes, chunk: nil))
    case "assembled": blackHole(Pipelines.assembled(home.bytes, chunk: 4096))
    case "message": blackHole(Pipelines.messageDecoder(home.bytes, chunk: 4096, dialect: UIMessageStreamDialect.self))
    case "any-message": blackHole(Pipelines.anyMessageDecoder(home.bytes, chunk: 4096, format: nil))
    case "openai-typed", "openai-views", "openai-message", "openai-copy", "openai-none":
        profile(path, Payloads.openAIChatChunks(targetBytes: 1_000_000), OpenAIChatDialect.self)
    case "anthropic-typed", "anthropic-views", "anthropic-message", "anthropic-copy", "anthropic-none":
        profile(path, Payloads.anthropicEvents(targetBytes: 1_000_000), AnthropicDialect.self)
    case "responses-typed", "responses-views", "responses-message", "responses-copy", "responses-none":
        profile(path, Payloads.responsesEvents(targetBytes: 1_000_000), OpenAIResponsesDialect.self)
    case "v4-typed", "v4-views", "v4-message", "v4-copy", "v4-none":
        profile(path, Payloads.dataStreamV4Parts(targetBytes: 1_000_000), DataStreamV4Dialect.self)
    case "ollama-typed", "ollama-views", "ollama-message", "ollama-copy", "ollama-none":
        profile(path, Payloads.ollamaLines(targetBytes: 1_000_000), OllamaDialect.self)
    case "gemini-typed", "gemini-views", "gemini-message", "gemini-copy", "gemini-none":
        profile(path, Payloads.geminiArray(targetBytes: 1_000_000), GeminiDialect.self)
    case "apply":
        // The assembler alone: 20,000 text deltas of 19 bytes.
        var assembler = MessageAssembler()
        let start = Clock.nanoseconds()
        for _ in 0..<20_000 { assembler.apply(.textDelta(id: "t1", delta: "hello world again ")) }
        print("apply: \(Double(Clock.nanoseconds() - start) / 1e6) ms, \(assembler.message.text.utf8.count) bytes")
    case "copy": blackHole(Ceilings.yajlCopy(home))
    case "history":
        let page = Payloads.historyPage(count: 100)
        let parser = JSONParser()
        blackHole((0..<100).reduce(0) { sum, _ in sum + Pipelines.historyPage(parser, page) })
    case "tool": blackHole(Pipelines.toolInput(Payloads.toolInputStream(inputBytes: 20_000).payload.bytes))
    case let name where name.hasPrefix("tool-"):
        // tool-<ui|openai|anthropic>[-100k][-copy|-none]: one call in 200,000 (or 100,000) 1-byte deltas.
        toolProfile(name)
    default: print("unknown path \(path)"); exit(2)
    }
    print("\(path): \(Allocations.count - before) allocations (generation included)")
    exit(0)
}
/// `<format>-typed` (events), `<format>-views` (lent events), `<format>-message` (`MessageDecoder`, its text checked) or
/// `<format>-copy` (the copy ceiling on the same payloads) on `reply`; `<format>-none` is the payload's
/// generation only, to subtract from the others' whole-program counts.
func profile<Dialect: StreamDialect>(_ path: String, _ reply: StreamPayload, _ dialect: Dialect.Type) {
    if path.hasSuffix("-none") {
        blackHole(reply.bytes.count)
    } else if path.hasSuffix("-copy") {
        blackHole(Ceilings.yajlCopy(reply))
    } else if path.hasSuffix("-views") {
        blackHole(Pipelines.typedViews(reply.bytes, chunk: 4096, dialect: dialect))
    } else if path.hasSuffix("-message") {
        let length = Pipelines.messageDecoder(reply.bytes, chunk: 4096, dialect: dialect)
        precondition(length == reply.expectedText.utf8.count, "\(path): the text differs")
    } else {
        blackHole(Pipelines.typedEvents(reply.bytes, chunk: 4096, dialect: dialect))
    }
}

/// `tool-<ui|openai|anthropic>[-100k][-copy|-none]`: decoder + assembler on one tool call in 200,000
/// (or 100,000) 1-byte deltas, the partial input read after every event, its final input checked;
/// `-copy` is the copy ceiling on the same payload, `-none` its generation only.
func toolProfile(_ name: String) {
    let size = name.contains("-100k") ? 100_000 : 200_000
    let format: Payloads.ToolFormat
    if name.hasPrefix("tool-openai") {
        format = .openAIChat
    } else if name.hasPrefix("tool-anthropic") {
        format = .anthropic
    } else if name.hasPrefix("tool-ui") {
        format = .uiMessageStream
    } else {
        print("unknown path \(name)")
        exit(2)
    }
    let (payload, _) = Payloads.toolInputStream(inputBytes: size, format: format)
    if name.hasSuffix("-none") {
        blackHole(payload.bytes.count)
    } else if name.hasSuffix("-copy") {
        blackHole(Ceilings.yajlCopy(payload))
    } else {
        switch format {
        case .uiMessageStream: blackHole(Pipelines.toolInput(payload.bytes, dialect: UIMessageStreamDialect.self))
        case .openAIChat: blackHole(Pipelines.toolInput(payload.bytes, dialect: OpenAIChatDialect.self))
        case .anthropic: blackHole(Pipelines.toolInput(payload.bytes, dialect: AnthropicDialect.self))
        }
    }
}

if !Allocations.isCounting {
    print("note: the counting allocator is not in use; allocation figures read 0")
}
let suite = Suite(options: options)
suite.run()
if options.json {
    Report.printJSON(suite)
} else {
    Report.printTable(suite)
}
