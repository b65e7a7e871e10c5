// The report's arithmetic and its reading of callgrind out files (`chatstream-bench --report`).

import ChatStreamBenchSupport
import Foundation
import Testing

@Suite("chatstream-bench --report: callgrind totals and ratios")
struct ReportArithmeticTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/profile-none.callgrind")

    @Test func aCallgrindOutFileGivesItsTotal() throws {
        let text = try String(contentsOf: Self.fixture, encoding: .utf8)
        #expect(CallgrindTotals.instructions(in: text) == 147_603_568)
        #expect(CallgrindTotals.firstEvent(in: text) == "Ir")
    }

    @Test func totalsWinOverTheSummaryAndTheFirstEventCounts() {
        let text = "events: Ir Dr\nsummary: 10 4\nfn=(1) main\n0 10 4\ntotals: 12 5\n"
        #expect(CallgrindTotals.instructions(in: text) == 12)
    }

    @Test func aFileCutShortFallsBackOnItsSummary() {
        #expect(CallgrindTotals.instructions(in: "events: Ir\nsummary: 4242\nfn=(1) main\n0 17\n") == 4242)
    }

    @Test func aFileWithoutATotalGivesNone() {
        #expect(CallgrindTotals.instructions(in: "events: Ir\nfn=(1) main\n0 17\n") == nil)
        #expect(CallgrindTotals.instructions(in: "summary: many\n") == nil)
        #expect(CallgrindTotals.instructions(in: "") == nil)
    }

    @Test func theRatioSubtractsTheGenerationFromBoth() throws {
        // The UI tool-input profile of BENCHMARKS.md (deliverable 1, second round), in millions.
        let ratio = CeilingRatio(ceiling: 1_361.4, ours: 1_629.9, baseline: 858.8)
        #expect(abs(ratio.ceilingNet - 502.6) < 1e-9)
        #expect(abs(ratio.oursNet - 771.1) < 1e-9)
        let value = try #require(ratio.ratio)
        #expect(abs(value - 502.6 / 771.1) < 1e-12)
        #expect(CeilingRatio(ceiling: 30, ours: 15).ratio == 2)
    }

    @Test func aRatioOfNothingIsNone() {
        #expect(CeilingRatio(ceiling: 100, ours: 100, baseline: 100).ratio == nil)
        #expect(CeilingRatio(ceiling: 50, ours: 200, baseline: 100).ratio == nil)
    }

    @Test func mediansAndTheirRatio() throws {
        #expect(median([3, 1, 2]) == 2)
        #expect(median([4, 1, 3, 2]) == 2.5)
        #expect(median([]) == 0)
        let ratio = try #require(ratioOfMedians([2, 9, 4], over: [1, 2, 3]))
        #expect(ratio == 2)
        #expect(ratioOfMedians([1], over: []) == nil)
        #expect(ratioOfMedians([], over: [1]) == nil)
    }
}

@Suite("chatstream-bench's command line")
struct BenchOptionsTests {
    static func options(_ arguments: [String]) -> Options? {
        if case .options(let options) = Options.outcome(of: arguments) { return options }
        return nil
    }

    static func failure(_ arguments: [String]) -> String? {
        if case .failure(let message) = Options.outcome(of: arguments) { return message }
        return nil
    }

    @Test func theReportTakesItsOwnDefaultRuns() throws {
        let report = try #require(Self.options(["--report"]))
        #expect(report.report && !report.report22 && !report.quick && !report.json && !report.noValgrind)
        #expect(report.runs == 21 && report.messageMiB == nil && report.loadSeconds == nil && report.chatstream == nil)
        #expect(try #require(Self.options(["--report", "--quick"])).runs == 5)
        #expect(try #require(Self.options(["--report-22", "--quick"])).runs == 5)
        #expect(try #require(Self.options(["--report-22"])).runs == 11)
        let given = try #require(Self.options(["--report-22", "--quick", "--runs", "9", "--json", "--no-valgrind"]))
        #expect(given.report22 && !given.report)
        #expect(given.runs == 9 && given.runsGiven && given.json && given.noValgrind && given.quick)
        let sized = try #require(
            Self.options(["--report", "--message-mib", "64", "--load-seconds", "2", "--chatstream", "/tmp/cs"]))
        #expect(sized.messageMiB == 64 && sized.loadSeconds == 2 && sized.chatstream == "/tmp/cs")
        let ceiling = try #require(Self.options(["--ceiling-file", "ndjson", "/tmp/o.ndjson"]))
        #expect(ceiling.ceilingFile?.format == "ndjson" && ceiling.ceilingFile?.path == "/tmp/o.ndjson")
    }

    @Test func theSuiteKeepsItsDefaults() throws {
        let plain = try #require(Self.options([]))
        #expect(!plain.report && plain.runs == 5 && plain.gigabyte == nil)
        #expect(try #require(Self.options(["--quick"])).runs == 3)
        #expect(try #require(Self.options(["--runs", "2", "--quick"])).runs == 2)
        #expect(try #require(Self.options(["--no-gigabyte"])).gigabyte == false)
        #expect(try #require(Self.options(["--profile", "tool-ui-copy"])).profile == "tool-ui-copy")
        let payload = try #require(Self.options(["--write-payload", "openai-chat", "/tmp/x.sse"]).map(\.writePayload))
        #expect(payload?.format == "openai-chat" && payload?.path == "/tmp/x.sse")
        #expect(try #require(Self.options(["--serve-child"])).serveChild)
        #expect(try #require(Self.options(["--report"])).defaultPriority == false)
        #expect(try #require(Self.options(["--report", "--default-priority"])).defaultPriority)
        let simdjson = try #require(Self.options(["--simdjson", "--quick", "--runs", "3"]))
        #expect(simdjson.simdjson && simdjson.quick && simdjson.runs == 3)
        let decode = try #require(Self.options(["--decode-file", "anthropic", "/tmp/a.sse", "--tool"]))
        #expect(decode.decodeFile?.format == "anthropic" && decode.decodeFile?.path == "/tmp/a.sse" && decode.tool)
    }

    @Test func badCommandLinesSayWhy() {
        #expect(Self.failure(["--runs"]) == "--runs needs a positive number")
        #expect(Self.failure(["--runs", "0"]) == "--runs needs a positive number")
        #expect(Self.failure(["--profile"]) != nil)
        #expect(Self.failure(["--write-payload", "openai-chat"]) != nil)
        #expect(Self.failure(["--no-valgrind"]) == "--no-valgrind goes with --report-22")
        #expect(Self.failure(["--report", "--no-valgrind"]) == "--no-valgrind goes with --report-22")
        #expect(
            Self.failure(["--message-mib", "8"]) == "--message-mib, --load-seconds and --chatstream go with --report")
        #expect(Self.failure(["--report", "--load-seconds", "0"]) == "--load-seconds needs a positive number")
        #expect(Self.failure(["--ceiling-file", "ndjson"]) == "--ceiling-file needs a FORMAT and a PATH")
        #expect(Self.failure(["--tool"]) == "--tool goes with --decode-file")
        #expect(Self.failure(["--default-priority"]) == "--default-priority goes with --report")
        #expect(Self.failure(["--decode-file", "ndjson"]) == "--decode-file needs a FORMAT and a PATH")
        #expect(Self.failure(["--fast"]) == "unknown argument --fast")
        if case .help = Options.outcome(of: ["--report", "-h"]) {} else { Issue.record("-h is not help") }
    }

    @Test func theUsageNamesTheReport() {
        #expect(Options.usage.contains("--report"))
        #expect(Options.usage.contains("--no-valgrind") && Options.usage.contains("--default-priority"))
        #expect(Options.usage.contains("--report-22") && Options.usage.contains("--message-mib"))
    }
}
