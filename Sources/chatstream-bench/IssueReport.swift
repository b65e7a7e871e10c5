// IssueReport: `chatstream-bench --report`, every figure of issue 32 from one invocation, each a
// ratio to a baseline measured in the same run and read against its target.
//
// 1. Bytes to text (and to streamed tool input) for every format: ChatStream against the simdjson
//    On-Demand program and the yajl copy ceiling, whole processes in alternation, CPU net of each
//    side's start-up (SimdjsonColumn.measure; target: ChatStream / simdjson >= 0.6).
// 2. Start-up: `chatstream replay FILE --output text` of a one-line (NDJSON) stream against `cat FILE`,
//    alternating, median wall times (target <= 3).
// 3. `chatstream chat` against curl on the same 600 KB streamed reply from the local server over
//    loopback, start to exit of each process (ClientVersusCurl; target <= 1.1).
// 4. Memory: `chatstream replay --output message` of a UI stream of 17-byte deltas (1 GiB unless
//    --message-mib), its peak RSS over the text it holds (target <= 1.3), and the same stream with
//    `--json`; beside them 64 KiB deltas (at most 128 MiB). The stream is generated as it is
//    written to the child's standard input.
// 5. The server: `chatstream serve` with a file store, wrk at 64 connections on a list page and on
//    streamed chats (--load-seconds each, five rounds alternating the routes, one with --quick),
//    the median round's p99 (target < 50 ms): one 5 s run's p99 moved by half between runs here.
//
// A section that cannot run (no chatstream built, no wrk) says why, and the report then exits 1;
// the others still run. The measurements of 2 to 5 are in IssueReport+Processes.swift, the output
// in IssueReport+Output.swift.

import ChatStreamBenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct IssueReport {
    /// `cat` and `chatstream replay` of the same one-line stream.
    struct Startup {
        var runs: Int
        var catWall: [Double] = []
        var catCPU: [Double] = []
        var replayWall: [Double] = []
        var replayCPU: [Double] = []
        var timeRatio: Double? { ratioOfMedians(replayWall, over: catWall) }
        var cpuRatio: Double? { ratioOfMedians(replayCPU, over: catCPU) }
    }

    /// One `replay --output message` run's peak against the text it held.
    struct Memory {
        var name: String
        var streamBytes: Int
        var textBytes: Int
        var peakBytes: Int
        /// The same command's peak on a stream of one short delta: the process's own footprint.
        var baseBytes: Int
        var ratio: Double { Double(peakBytes) / Double(max(textBytes, 1)) }
    }

    /// A route's wrk runs against the server: `summary` is the run of median p99.
    struct Load {
        var route: String
        var connections: Int
        var seconds: Int
        var summary: WrkSummary
        /// Every run's summary, in the order run.
        var rounds: [WrkSummary] = []
    }

    static let formatTarget = Goal.atLeast(0.6)
    static let startupTarget = Goal.atMost(3)
    static let chatTarget = Goal.atMost(1.1)
    static let memoryTarget = Goal.atMost(1.3)
    static let latencyTarget = Goal.atMost(0.05)

    var options: Options
    var started = Date()
    var loadBefore: [Double] = RatioReport.loadAverage()
    var loadAfter: [Double] = []
    var seconds = 0.0
    var chatstream: String?
    /// The scheduling priority it ran at (BenchPriority).
    var priority = ""
    var formatRuns = 0
    var formats: [SimdjsonColumn.Row] = []
    var startup: Startup? = nil
    var chat: ClientVersusCurl? = nil
    var memory: [Memory] = []
    var server: [Load] = []
    /// Why a section was not measured, by its number.
    var missing: [Int: String] = [:]

    var measuredEverything: Bool { missing.isEmpty }

    /// The CLI to measure: --chatstream, else scripts/chatstream.sh's static build, else the one
    /// beside this executable.
    static func chatstreamPath(_ options: Options) -> String? {
        if let path = options.chatstream { return path }
        let staticBuild = ".build/static/release/chatstream"
        if access(staticBuild, X_OK) == 0 {
            return URL(fileURLWithPath: staticBuild).standardizedFileURL.path
        }
        return ClientVersusCurl.chatstreamBesideThisExecutable()
    }

    static func run(options: Options, priority: String) async -> IssueReport {
        var report = IssueReport(options: options)
        report.priority = priority
        let start = Clock.nanoseconds()
        func progress(_ text: String) {
            FileHandle.standardError.write(Data("  \(text)\n".utf8))
        }
        signal(SIGPIPE, SIG_IGN)  // a child that ends early must not end the report
        report.chatstream = chatstreamPath(options)
        if let path = report.chatstream, access(path, X_OK) != 0 {
            report.missing[2] = "\(path) is not an executable"
            report.chatstream = nil
        }
        let noCLI =
            "no chatstream: build it (scripts/chatstream.sh, or swift build -c release --product chatstream) "
            + "or name it with --chatstream"

        report.formatRuns = options.runsGiven ? options.runs : (options.quick ? 3 : 5)
        do {
            report.formats = try SimdjsonColumn.measure(
                quick: options.quick, runs: report.formatRuns, progress: progress)
        } catch {
            report.missing[1] = "\(error)"
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-report-\(getpid())")
        try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        if let chatstream = report.chatstream {
            do {
                report.startup = try measureStartup(
                    chatstream: chatstream, runs: options.quick ? 15 : 40, work: work, progress: progress)
            } catch {
                report.missing[2] = "\(error)"
            }
        } else {
            report.missing[2] = report.missing[2] ?? noCLI
        }
        if let chatstream = report.chatstream {
            do {
                report.chat = try await ClientVersusCurl.measure(
                    rounds: options.runs, chatstream: chatstream, progress: progress)
            } catch {
                report.missing[3] = "\(error)"
            }
            do {
                report.memory = try measureMemory(
                    chatstream: chatstream, mebibytes: options.messageMiB ?? (options.quick ? 128 : 1024), work: work,
                    progress: progress)
            } catch {
                report.missing[4] = "\(error)"
            }
            do {
                report.server = try measureServer(
                    chatstream: chatstream, seconds: options.loadSeconds ?? (options.quick ? 3 : 5),
                    rounds: options.quick ? 1 : 5, work: work, progress: progress)
            } catch {
                report.missing[5] = "\(error)"
            }
        } else {
            for section in 3...5 { report.missing[section] = noCLI }
        }
        report.loadAfter = RatioReport.loadAverage()
        report.seconds = Double(Clock.nanoseconds() - start) / 1e9
        return report
    }
}
