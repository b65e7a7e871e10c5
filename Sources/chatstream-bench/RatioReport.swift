// RatioReport: `chatstream-bench --report-22`, issue 22's figures from one invocation, each a ratio to
// a baseline measured in the same run.
//
// 1. Streamed tool input against the copy ceiling (UI message stream, OpenAI chat, Anthropic; one
//    call in 200,000 1-byte deltas, 100,000 with --quick), and 200k against 100k (linear: 2).
// 2. Each format's lent path against its own copy ceiling (home, OpenAI chat, Anthropic, Responses,
//    AI SDK v4, Ollama, Gemini; 1 MB replies at 4 KiB chunks).
// 3. The client against curl on a 600 KB streamed reply over loopback (ClientVersusCurl).
// 4. Main-actor delivery: text deltas per second into ConversationState for a 1 MB reply, against
//    the same reply read off the main actor (DeliveryBenchmark).
//
// 1 and 2 are instructions when valgrind is on PATH: this executable runs under callgrind once per
// `--profile` (CallgrindProfiles), each figure `(ceiling - none) / (ours - none)` with the
// profile's `-none` (its payload's generation) subtracted. Without valgrind, or with
// --no-valgrind, they are paired timing ratios in this process (noisier; the report says so).
// 3 and 4 are timed; they run after the callgrind runs, so those do not load the machine then.

import ChatStream
import ChatStreamBenchSupport
import ChatStreamClient
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct RatioReport {
    /// One path against its ceiling.
    struct CeilingFigure {
        var name: String
        var profile: String
        var ratio: CeilingRatio
        var target: Double
        /// Tool input only: `(ours - none)` at 200k deltas over the same at 100k (nil with --quick
        /// or when timed).
        var linearity: Double? = nil
    }

    /// How figures 1 and 2 were measured.
    enum Method: String {
        case callgrind = "instructions (callgrind)"
        case timing = "paired timing"
    }

    /// Main-actor delivery, medians over rounds.
    struct Delivery {
        var events: Int
        var rounds: Int
        var conversationState: [DeliveryBenchmark.Result] = []
        var offMainActor: [DeliveryBenchmark.Result] = []
        var stateEventsPerSecond: Double { median(conversationState.map(\.eventsPerSecond)) }
        var offMainEventsPerSecond: Double { median(offMainActor.map(\.eventsPerSecond)) }
        var turns: Double { median(conversationState.map { Double($0.turns) }) }
        var ratio: Double { stateEventsPerSecond / max(offMainEventsPerSecond, 1e-9) }
    }

    var options: Options
    var method: Method
    var methodNote: String
    var started = Date()
    var loadBefore: [Double] = RatioReport.loadAverage()
    var loadAfter: [Double] = []
    var seconds = 0.0
    var toolInput: [CeilingFigure] = []
    var lent: [CeilingFigure] = []
    var chat: ClientVersusCurl? = nil
    var chatError: String? = nil
    var delivery: Delivery? = nil

    static let toolFormats: [(name: String, profile: String, format: Payloads.ToolFormat)] = [
        ("UI message stream", "tool-ui", .uiMessageStream), ("OpenAI chat", "tool-openai", .openAIChat),
        ("Anthropic", "tool-anthropic", .anthropic),
    ]
    /// Display name, the lent profile, the copy ceiling's, the generation's.
    static let lentFormats: [(name: String, views: String, copy: String, none: String)] =
        [("home (UI message stream)", "typed-views", "copy", "none")]
        + [
            ("OpenAI chat", "openai"), ("Anthropic", "anthropic"), ("OpenAI Responses", "responses"),
            ("AI SDK v4", "v4"), ("Ollama NDJSON", "ollama"), ("Gemini array", "gemini"),
        ].map { ($0.0, "\($0.1)-views", "\($0.1)-copy", "\($0.1)-none") }

    /// Runs every part; `progress` lines go to standard error.
    static func run(options: Options) async -> RatioReport {
        let valgrind = options.noValgrind ? nil : CallgrindProfiles.valgrind
        let note: String
        if valgrind != nil {
            note = "callgrind instructions, whole program minus the profile's -none (its payload's generation)"
        } else if options.noValgrind {
            note = "paired timing in this process (--no-valgrind), median of per-pair ratios"
        } else {
            note = "valgrind is not on PATH: paired timing in this process, median of per-pair ratios (noisier)"
        }
        var report = RatioReport(options: options, method: valgrind == nil ? .timing : .callgrind, methodNote: note)
        let start = Clock.nanoseconds()
        func progress(_ text: String) {
            if !options.json { FileHandle.standardError.write(Data("  \(text)\n".utf8)) }
        }
        if let valgrind {
            do {
                try report.countInstructions(valgrind: valgrind, progress: progress)
            } catch {
                progress("callgrind failed (\(error)); timing instead")
                report.method = .timing
                report.methodNote = "callgrind failed (\(error)): paired timing in this process"
                report.timeCeilings(progress: progress)
            }
        } else {
            report.timeCeilings(progress: progress)
        }
        do {
            report.chat = try await ClientVersusCurl.measure(rounds: options.runs, progress: progress)
        } catch {
            report.chatError = "\(error)"
            progress("client vs curl: \(error)")
        }
        report.delivery = await measureDelivery(rounds: options.quick ? 1 : 3, progress: progress)
        report.loadAfter = loadAverage()
        report.seconds = Double(Clock.nanoseconds() - start) / 1e9
        return report
    }

    /// The tool-input suffix: 200,000 deltas, or 100,000 with --quick.
    var toolSize: String { options.quick ? "-100k" : "" }

    /// Figures 1 and 2 from callgrind totals.
    mutating func countInstructions(valgrind: String, progress: (String) -> Void) throws {
        var profiles: [String] = []
        for tool in Self.toolFormats {
            let base = tool.profile + toolSize
            profiles += [base, base + "-copy", base + "-none"]
            if !options.quick { profiles += [tool.profile + "-100k", tool.profile + "-100k-none"] }
        }
        for format in Self.lentFormats { profiles += [format.views, format.copy, format.none] }
        let jobs = min(2, ProcessInfo.processInfo.activeProcessorCount)
        progress("callgrind: \(profiles.count) profiles, \(jobs) at a time")
        let totals = try CallgrindProfiles.count(profiles, valgrind: valgrind, jobs: jobs, progress: progress)
        func total(_ name: String) -> Double { Double(totals[name] ?? 0) }
        toolInput = Self.toolFormats.map { tool in
            let base = tool.profile + toolSize
            var figure = CeilingFigure(
                name: tool.name, profile: base,
                ratio: CeilingRatio(ceiling: total(base + "-copy"), ours: total(base), baseline: total(base + "-none")),
                target: 0.5)
            if !options.quick {
                let half = total(tool.profile + "-100k") - total(tool.profile + "-100k-none")
                if half > 0 { figure.linearity = figure.ratio.oursNet / half }
            }
            return figure
        }
        lent = Self.lentFormats.map { format in
            CeilingFigure(
                name: format.name, profile: format.views,
                ratio: CeilingRatio(
                    ceiling: total(format.copy), ours: total(format.views), baseline: total(format.none)),
                target: 0.8)
        }
    }

    /// Figures 1 and 2 as paired timing in this process: the ceiling and ours alternately, the
    /// median of the per-pair ratios (kept as `ceiling` = that ratio, `ours` = 1).
    mutating func timeCeilings(progress: (String) -> Void) {
        let runs = options.quick ? 3 : 7
        let size = options.quick ? 100_000 : 200_000
        toolInput = Self.toolFormats.map { tool in
            progress("timing: tool input, \(tool.name)")
            let payload = Payloads.toolInputStream(inputBytes: size, format: tool.format).payload
            let bytes = payload.bytes
            let ratio: Double
            switch tool.format {
            case .uiMessageStream:
                ratio = pairedRatio(
                    runs: runs, baseline: { Ceilings.yajlCopy(payload) },
                    ours: { Pipelines.toolInput(bytes, dialect: UIMessageStreamDialect.self) })
            case .openAIChat:
                ratio = pairedRatio(
                    runs: runs, baseline: { Ceilings.yajlCopy(payload) },
                    ours: { Pipelines.toolInput(bytes, dialect: OpenAIChatDialect.self) })
            case .anthropic:
                ratio = pairedRatio(
                    runs: runs, baseline: { Ceilings.yajlCopy(payload) },
                    ours: { Pipelines.toolInput(bytes, dialect: AnthropicDialect.self) })
            }
            return CeilingFigure(
                name: tool.name, profile: tool.profile + toolSize, ratio: CeilingRatio(ceiling: ratio, ours: 1),
                target: 0.5)
        }
        func lentFigure<Dialect: StreamDialect>(_ index: Int, _ payload: StreamPayload, _ dialect: Dialect.Type)
            -> CeilingFigure
        {
            let format = Self.lentFormats[index]
            progress("timing: lent path, \(format.name)")
            let bytes = payload.bytes
            let ratio = pairedRatio(
                runs: runs, baseline: { Ceilings.yajlCopy(payload) },
                ours: { Pipelines.typedViews(bytes, chunk: 4096, dialect: dialect) })
            return CeilingFigure(
                name: format.name, profile: format.views, ratio: CeilingRatio(ceiling: ratio, ours: 1), target: 0.8)
        }
        let size1MB = 1_000_000
        lent = [
            lentFigure(0, Payloads.homeTextDeltas(targetBytes: size1MB), UIMessageStreamDialect.self),
            lentFigure(1, Payloads.openAIChatChunks(targetBytes: size1MB), OpenAIChatDialect.self),
            lentFigure(2, Payloads.anthropicEvents(targetBytes: size1MB), AnthropicDialect.self),
            lentFigure(3, Payloads.responsesEvents(targetBytes: size1MB), OpenAIResponsesDialect.self),
            lentFigure(4, Payloads.dataStreamV4Parts(targetBytes: size1MB), DataStreamV4Dialect.self),
            lentFigure(5, Payloads.ollamaLines(targetBytes: size1MB), OllamaDialect.self),
            lentFigure(6, Payloads.geminiArray(targetBytes: size1MB), GeminiDialect.self),
        ]
    }

    /// Figure 4: ConversationState and the off-main-actor baseline, alternately.
    static func measureDelivery(rounds: Int, progress: (String) -> Void) async -> Delivery {
        let events = 100_000
        progress("main-actor delivery: \(events) deltas, \(rounds) rounds")
        var delivery = Delivery(events: events, rounds: rounds)
        for _ in 0..<rounds {
            if let off = try? await DeliveryBenchmark.offMainActor(deltas: events) {
                precondition(off.textIsWhole, "the off-main-actor reply is not whole")
                delivery.offMainActor.append(off)
            }
            let (_, state) = await DeliveryBenchmark.intoConversationState(deltas: events)
            precondition(state.textIsWhole, "ConversationState's bubble does not hold the reply")
            delivery.conversationState.append(state)
        }
        return delivery
    }

    /// The 1, 5 and 15 minute load averages.
    static func loadAverage() -> [Double] {
        var loads = [Double](repeating: 0, count: 3)
        _ = getloadavg(&loads, 3)
        return loads
    }
}
