// SimdjsonColumn: `--simdjson`, ChatStream against the state of the art of issue 32: a C++ program
// (Benchmarks/simdjson-peer) that frames with memchr and reads each unit with simdjson On-Demand,
// extracting the same field into a growing string.
//
// Both sides are whole processes reading the same file: the simdjson program, and this bench as
// `--decode-file` (the file in 4 KiB pieces through `AnyStreamDecoder.feed(_:into:)` with a sink,
// the text or tool input appended to one growing byte array). Each side also reads a tiny stream of the same
// format, so the figure is net of start-up (reported apart). A third side is the yajl copy ceiling
// (`--ceiling-file`, SimdjsonColumn+Ceiling). Runs alternate between the sides (peer, ours, yajl,
// then each on the tiny stream) so load on a shared machine falls on all, `--runs` rounds. A ratio
// is the median of its rounds' ratios (a round's runs of the two sides are neighbours in time, so
// a slow stretch of the machine falls on both; medians of each side apart moved the ratio of an
// unchanged decoder by up to 0.2 between reports), each net of the sides' median start-up; the
// MB/s columns are medians. The throughput figures are CPU time (user + system, from wait4), which a
// loaded machine disturbs far less than wall time; the whole-process wall ratio is shown beside. Both sides must print the same number of text bytes, and that number must be
// the payload's, before anything is timed.
//
// Example: `chatstream-bench --simdjson --quick` prints one row per payload (its name, MB, each
// side's MB/s, ChatStream / simdjson and ChatStream / yajl net of start-up, and ChatStream / simdjson
// whole-process), then the start-ups. `--report` runs the same measurement.

import ChatStream
import ChatStreamBenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum SimdjsonColumn {
    /// One payload both sides read.
    struct Case {
        var name: String
        /// The `--format` name both programs take.
        var format: String
        var tool: Bool
        /// The payload, its text (or tool input) in bytes, and its JSON units.
        var make: () -> (bytes: [UInt8], expectedBytes: Int, units: Int)
    }

    /// Every format's text and the three tool-input streams of the bench.
    static func cases(quick: Bool) -> [Case] {
        let size = quick ? 4_000_000 : 32_000_000
        let deltas = quick ? 50_000 : 200_000
        func text(_ name: String, _ format: String, _ make: @escaping (Int) -> StreamPayload) -> [Case] {
            [
                Case(name: "\(name) text", format: format, tool: false) {
                    let payload = make(size)
                    return (payload.bytes, payload.expectedText.utf8.count, payload.jsonRanges.count)
                }
            ]
        }
        func tool(_ name: String, _ format: String, _ kind: Payloads.ToolFormat) -> Case {
            Case(name: "\(name) tool input, 1-byte deltas", format: format, tool: true) {
                let (payload, input) = Payloads.toolInputStream(inputBytes: deltas, format: kind)
                return (payload.bytes, input.utf8.count, payload.jsonRanges.count)
            }
        }
        return text("UI message stream", "ui-message-stream") { Payloads.homeTextDeltas(targetBytes: $0) }
            + text("OpenAI chat", "openai-chat") { Payloads.openAIChatChunks(targetBytes: $0) }
            + text("Anthropic", "anthropic") { Payloads.anthropicEvents(targetBytes: $0) }
            + text("OpenAI Responses", "openai-responses") { Payloads.responsesEvents(targetBytes: $0) }
            + text("AI SDK v4", "ai-sdk-v4") { Payloads.dataStreamV4Parts(targetBytes: $0) }
            + text("Ollama NDJSON", "ndjson") { Payloads.ollamaLines(targetBytes: $0) }
            + text("Gemini array", "json-array") { Payloads.geminiArray(targetBytes: $0) }
            + [
                tool("UI message stream", "ui-message-stream", .uiMessageStream),
                tool("OpenAI chat", "openai-chat", .openAIChat),
                tool("Anthropic", "anthropic", .anthropic),
            ]
    }

    // MARK: The ChatStream side

    /// `--decode-file FORMAT PATH [--tool]`: the lent path over the file in 4 KiB pieces; prints
    /// "FORMAT: N text bytes". Returns the exit status.
    static func decodeFile(format name: String, path: String, tool: Bool) -> Int32 {
        guard let format = StreamFormat(rawValue: name) else {
            print("chatstream-bench: unknown format \(name)")
            return 2
        }
        guard let bytes = FileManager.default.contents(atPath: path) else {
            print("chatstream-bench: cannot read \(path)")
            return 1
        }
        var decoder = AnyStreamDecoder(format: format)
        /// The text (or tool input) bytes: text deltas copied where they are lent.
        struct Text: StreamEventSink {
            let tool: Bool
            var out: [UInt8] = []
            mutating func textDelta(id: String, delta: CheckedUTF8) { if !tool { delta.append(to: &out) } }
            mutating func event(_ event: StreamEvent) {
                if tool, case .toolInputDelta(_, let delta) = event { out += delta.utf8 }
            }
        }
        var sink = Text(tool: tool)
        do {
            var offset = 0
            while offset < bytes.count {
                try decoder.feed(bytes[offset..<min(offset + 4096, bytes.count)], into: &sink)
                offset += 4096
            }
            try decoder.finish(into: &sink)
        } catch {
            print("chatstream-bench: \(path): \(error)")
            return 1
        }
        print("\(name): \(sink.out.count) text bytes")
        return 0
    }

    // MARK: The comparison

    /// One payload's medians, in seconds.
    struct Row {
        var name: String
        var format: String
        var tool: Bool
        var bytes: Int
        /// CPU seconds of each side on the payload and on the tiny stream.
        var peer: Double
        var ours: Double
        var yajl: Double
        var peerStart: Double
        var oursStart: Double
        var yajlStart: Double
        /// Wall seconds of each side on the payload, whole process.
        var peerWall: Double
        var oursWall: Double
        /// ChatStream's throughput over simdjson's, net of each side's start-up: the median of
        /// the rounds' ratios.
        var netRatio: Double
        /// ChatStream's throughput over the yajl copy ceiling's, the same way.
        var yajlRatio: Double
        var wholeRatio: Double { peerWall / oursWall }
        func megabytesPerSecond(_ seconds: Double, _ start: Double) -> Double {
            Double(bytes) / 1e6 / max(seconds - start, 1e-9)
        }
    }

    /// `--simdjson`: prints the table; returns the exit status.
    static func run(options: Options) -> Int32 {
        do {
            print("simdjson On-Demand: \(try peerPath())")
            print("load before: \(RatioReport.loadAverage().map { String(format: "%.2f", $0) }.joined(separator: " "))")
            let rows = try measure(quick: options.quick, runs: options.runs) { print($0) }
            print(table(rows, runs: options.runs))
            print("load after: \(RatioReport.loadAverage().map { String(format: "%.2f", $0) }.joined(separator: " "))")
            return 0
        } catch {
            print("chatstream-bench: --simdjson: \(error)")
            return 1
        }
    }

    /// Every case's row: simdjson, ChatStream and the yajl copy ceiling, each as whole processes on
    /// the payload and on a tiny stream, in alternation, `runs` times; medians.
    static func measure(quick: Bool, runs: Int, progress: (String) -> Void) throws -> [Row] {
        let peer = try peerPath()
        let ours = try selfPath()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-simdjson-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var rows: [Row] = []
        for (index, item) in cases(quick: quick).enumerated() {
            progress("\(item.name): \(runs) runs of simdjson, ChatStream and the yajl copy ceiling")
            let (bytes, expected, units) = item.make()
            let big = work.appendingPathComponent("\(index).stream").path
            try Data(bytes).write(to: URL(fileURLWithPath: big))
            let tiny = work.appendingPathComponent("\(index)-tiny.stream").path
            try Data(tinyStream(item)).write(to: URL(fileURLWithPath: tiny))
            let toolArgument = item.tool ? ["tool"] : []
            let peerCommand = { (file: String) in [peer, item.format, file] + toolArgument }
            let ourCommand = { (file: String) in
                [ours, "--decode-file", item.format, file] + (item.tool ? ["--tool"] : [])
            }
            let yajlCommand = { (file: String) in [ours, "--ceiling-file", item.format, file] }
            // Both must read the payload's text, and the ceiling every unit's JSON, before anything is timed.
            for (side, command) in [("simdjson", peerCommand(big)), ("ChatStream", ourCommand(big))] {
                let read = try printedCount(command, work: work)
                guard read == expected else {
                    throw ReportError("\(item.name): \(side) read \(read) text bytes, the payload has \(expected)")
                }
            }
            let read = try printedCount(yajlCommand(big), work: work)
            guard read == units else {
                throw ReportError("\(item.name): the yajl ceiling read \(read) JSON units, the payload has \(units)")
            }
            var times: [[Double]] = Array(repeating: [], count: 6)
            var walls: [[Double]] = Array(repeating: [], count: 2)
            for _ in 0..<runs {
                let commands = [
                    peerCommand(big), ourCommand(big), yajlCommand(big), peerCommand(tiny), ourCommand(tiny),
                    yajlCommand(tiny),
                ]
                for (slot, command) in commands.enumerated() {
                    let exit = try ChildProcess.start(command).wait()
                    guard exit.status == 0 else { throw ReportError("\(command.joined(separator: " ")) failed") }
                    times[slot].append(exit.cpuSeconds)
                    if slot < 2 { walls[slot].append(exit.wallSeconds) }
                }
            }
            let medians = times.map(median)
            // Each round's ratios, net of the median start-ups (a start-up is too short to pair).
            func net(_ side: Int, _ round: Int) -> Double { max(times[side][round] - medians[side + 3], 1e-9) }
            let netRatios = (0..<runs).map { net(0, $0) / net(1, $0) }
            let yajlRatios = (0..<runs).map { net(2, $0) / net(1, $0) }
            rows.append(
                Row(
                    name: item.name, format: item.format, tool: item.tool, bytes: bytes.count, peer: medians[0],
                    ours: medians[1], yajl: medians[2], peerStart: medians[3], oursStart: medians[4],
                    yajlStart: medians[5], peerWall: median(walls[0]), oursWall: median(walls[1]),
                    netRatio: median(netRatios), yajlRatio: median(yajlRatios)))
            try? FileManager.default.removeItem(atPath: big)
        }
        return rows
    }

    /// The table: MB/s net of start-up on each side, and the ratios.
    static func table(_ rows: [Row], runs: Int) -> String {
        var lines = [
            "whole processes, alternating, \(runs) rounds (ratios: the median of the rounds'); MB/s and the first ratio are CPU time "
                + "(user + system) net of each side's start-up (its run on a tiny stream of the format); the last "
                + "is whole-process wall time",
            "| payload | MB | simdjson MB/s | ChatStream MB/s | yajl copy MB/s | ChatStream / simdjson | "
                + "ChatStream / yajl copy | whole process |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for row in rows {
            lines.append(
                "| \(row.name) | \(String(format: "%.1f", Double(row.bytes) / 1e6)) | "
                    + "\(String(format: "%.0f", row.megabytesPerSecond(row.peer, row.peerStart))) | "
                    + "\(String(format: "%.0f", row.megabytesPerSecond(row.ours, row.oursStart))) | "
                    + "\(String(format: "%.0f", row.megabytesPerSecond(row.yajl, row.yajlStart))) | "
                    + "\(String(format: "%.2f", row.netRatio)) | \(String(format: "%.2f", row.yajlRatio)) | "
                    + "\(String(format: "%.2f", row.wholeRatio)) |")
        }
        let peerStart = median(rows.map(\.peerStart)) * 1000
        let oursStart = median(rows.map(\.oursStart)) * 1000
        lines.append(
            "start-up CPU (tiny stream, median over payloads): simdjson \(String(format: "%.1f", peerStart)) ms, "
                + "ChatStream \(String(format: "%.1f", oursStart)) ms (\((try? selfPath()) ?? "this executable"))")
        return lines.joined(separator: "\n")
    }

    /// A stream of the case's format with a handful of events: each side's start-up and file read.
    static func tinyStream(_ item: Case) -> [UInt8] {
        if item.tool {
            let kind: Payloads.ToolFormat =
                item.format == "openai-chat" ? .openAIChat : item.format == "anthropic" ? .anthropic : .uiMessageStream
            return Payloads.toolInputStream(inputBytes: 40, format: kind).payload.bytes
        }
        switch item.format {
        case "openai-chat": return Payloads.openAIChatChunks(targetBytes: 300).bytes
        case "anthropic": return Payloads.anthropicEvents(targetBytes: 300).bytes
        case "openai-responses": return Payloads.responsesEvents(targetBytes: 300).bytes
        case "ai-sdk-v4": return Payloads.dataStreamV4Parts(targetBytes: 300).bytes
        case "ndjson": return Payloads.ollamaLines(targetBytes: 300).bytes
        case "json-array": return Payloads.geminiArray(targetBytes: 300).bytes
        default: return Payloads.homeTextDeltas(targetBytes: 300).bytes
        }
    }

    /// The number in the "FORMAT: N text bytes" (or "N JSON units") line `command` prints.
    static func printedCount(_ command: [String], work: URL) throws -> Int {
        let output = work.appendingPathComponent("output.txt").path
        let exit = try ChildProcess.start(command, output: output, error: output).wait()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard exit.status == 0, let count = text.split(separator: " ").dropLast(2).last.flatMap({ Int($0) }) else {
            throw ReportError("\(command.joined(separator: " ")) failed: \(text)")
        }
        return count
    }

    /// The simdjson program: CHATSTREAM_SIMDJSON_PEER, else .build/simdjson-peer/simdjson-peer,
    /// built first with Benchmarks/simdjson-peer/build.sh when missing.
    static func peerPath() throws -> String {
        if let path = ProcessInfo.processInfo.environment["CHATSTREAM_SIMDJSON_PEER"] { return path }
        let path = ".build/simdjson-peer/simdjson-peer"
        if access(path, X_OK) == 0 { return path }
        print("building the simdjson program (Benchmarks/simdjson-peer/build.sh)...")
        let exit = try ChildProcess.start(["Benchmarks/simdjson-peer/build.sh"], output: nil, error: "/dev/stderr")
            .wait()
        guard exit.status == 0, access(path, X_OK) == 0 else {
            throw ReportError(
                "Benchmarks/simdjson-peer/build.sh failed (run it from the package's folder; it needs apt or "
                    + "libsimdjson-dev and g++)")
        }
        return path
    }

    /// The executable that reads the payloads on ChatStream's side: this bench's static build
    /// (`scripts/build-cli.sh chatstream-bench`, .build/static/release) when it is there and no
    /// older than this executable, else this executable. Built so, a run starts in 2-3 ms rather
    /// than 17-20 (the dynamic loader binding the Swift runtime's libraries), and the figures, net of
    /// start-up, no longer carry the noise of subtracting the larger start-up.
    static func selfPath() throws -> String {
        guard let path = Bundle.main.executablePath else { throw ReportError("cannot find this executable") }
        return staticBuildIsCurrent() == true ? staticBuild : path
    }

    /// The static build's path.
    static var staticBuild: String {
        URL(fileURLWithPath: ".build/static/release/chatstream-bench").standardizedFileURL.path
    }

    /// Why ``selfPath()`` did not take the static build although it is there (it is older than
    /// this executable, so it may not hold the code being measured); nil when it took it or there
    /// is none.
    static func staticBuildPassedOver() -> String? {
        guard staticBuildIsCurrent() == false else { return nil }
        return "\(staticBuild) is older than this bench, so not used (scripts/build-cli.sh chatstream-bench "
            + "rebuilds it; this executable's larger start-up makes the figures, net of it, noisier)"
    }

    /// Whether the static build, there and not this executable, is no older than this executable;
    /// nil when there is no other static build to take.
    static func staticBuildIsCurrent() -> Bool? {
        guard let path = Bundle.main.executablePath, staticBuild != path, access(staticBuild, X_OK) == 0,
            let built = modified(staticBuild), let running = modified(path)
        else { return nil }
        return built >= running
    }

    /// A file's modification time in seconds, nil when it cannot be read.
    static func modified(_ path: String) -> Double? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            return Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
        #else
            return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        #endif
    }
}
