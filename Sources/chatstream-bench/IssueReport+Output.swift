// IssueReport+Output: `--report` as a table (default) or one JSON object (--json). Every figure's
// line names its target and says whether it holds; a section not measured says why.

import ChatStreamBenchSupport
import Foundation

extension IssueReport {
    private static func verdict(_ target: Goal, _ value: Double?) -> String {
        switch target.holds(value) {
        case true?: return "holds"
        case false?: return "MISSES"
        case nil: return "n/a"
        }
    }

    private static func number(_ value: Double?, _ digits: Int = 2) -> String {
        value.map { String(format: "%.\(digits)f", $0) } ?? "n/a"
    }

    private static func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

    private static func mebibytes(_ bytes: Int) -> String { String(format: "%.0f MiB", Double(bytes) / 1_048_576) }

    /// Each figure against its target, for the summary line and the JSON.
    var verdicts: [(figure: String, value: Double?, target: Goal)] {
        var all: [(String, Double?, Goal)] = formats.map {
            ("\($0.name) / simdjson", $0.netRatio, Self.formatTarget)
        }
        if let startup { all.append(("replay / cat, time", startup.timeRatio, Self.startupTarget)) }
        if let chat { all.append(("chatstream chat / curl, time", chat.processTimeRatio, Self.chatTarget)) }
        all += memory.map { ("\($0.name): peak / text", $0.ratio, Self.memoryTarget) }
        all += server.map { ("\($0.route) p99 at \($0.connections) connections", $0.summary.p99, Self.latencyTarget) }
        return all
    }

    func printTable() {
        let (cpu, cores) = Report.machine()
        let loads = { (values: [Double]) in values.map { String(format: "%.2f", $0) }.joined(separator: " ") }
        print(
            "chatstream-bench --report (issue 32): \(ISO8601DateFormatter().string(from: started)), \(cores) cores, \(cpu)"
        )
        print(
            "load average \(loads(loadBefore)) at the start, \(loads(loadAfter)) at the end; "
                + "\(String(format: "%.0f", seconds)) s\(options.quick ? ", --quick" : "")")
        print("chatstream: \(chatstream ?? "none")")
        print("scheduling: \(priority)")
        func pad(_ text: String, _ width: Int, right: Bool = true) -> String { Report.pad(text, width, right: right) }
        func notMeasured(_ section: Int) { if let why = missing[section] { print("  not measured: \(why)") } }

        print(
            "\n1. bytes to text (tool input: to the call's arguments), whole processes in alternation, CPU net of "
                + "start-up, \(formatRuns) rounds: MB/s medians, ratios the median of the rounds' ratios")
        print(
            pad("", 54, right: false) + pad("simdjson", 10) + pad("ChatStream", 12) + pad("yajl copy", 11)
                + pad("ChatStream", 12) + pad("target", 9) + pad("", 8) + pad("ChatStream", 12))
        print(
            pad("", 54, right: false) + pad("MB/s", 10) + pad("MB/s", 12) + pad("MB/s", 11) + pad("/ simdjson", 12)
                + pad("", 17) + pad("/ yajl copy", 12))
        for row in formats {
            print(
                pad("  \(row.name) (\(String(format: "%.0f", Double(row.bytes) / 1e6)) MB)", 54, right: false)
                    + pad(Self.number(row.megabytesPerSecond(row.peer, row.peerStart), 0), 10)
                    + pad(Self.number(row.megabytesPerSecond(row.ours, row.oursStart), 0), 12)
                    + pad(Self.number(row.megabytesPerSecond(row.yajl, row.yajlStart), 0), 11)
                    + pad(Self.number(row.netRatio), 12) + pad(Self.formatTarget.text, 9)
                    + pad(Self.verdict(Self.formatTarget, row.netRatio), 8) + pad(Self.number(row.yajlRatio), 12))
        }
        if !formats.isEmpty {
            print(
                "  start-up CPU (tiny stream, median over payloads): simdjson "
                    + Self.milliseconds(median(formats.map(\.peerStart))) + ", ChatStream "
                    + Self.milliseconds(median(formats.map(\.oursStart))) + ", yajl side "
                    + Self.milliseconds(median(formats.map(\.yajlStart))))
            print("  ChatStream side: \((try? SimdjsonColumn.selfPath()) ?? "this executable")")
            if let passedOver = SimdjsonColumn.staticBuildPassedOver() { print("  " + passedOver) }
        }
        notMeasured(1)

        print("\n2. start-up: chatstream replay FILE --output text of a one-line stream / cat FILE, medians")
        if let startup {
            print(
                "  \(startup.runs) runs each: cat \(Self.milliseconds(median(startup.catWall))) "
                    + "(CPU \(Self.milliseconds(median(startup.catCPU)))), replay "
                    + "\(Self.milliseconds(median(startup.replayWall))) (CPU \(Self.milliseconds(median(startup.replayCPU))))"
            )
            print(
                "  replay / cat: time \(Self.number(startup.timeRatio)) (\(Self.startupTarget.text) "
                    + "\(Self.verdict(Self.startupTarget, startup.timeRatio))), CPU \(Self.number(startup.cpuRatio))")
        }
        notMeasured(2)

        print(
            "\n3. chatstream chat / curl on the bench's loopback reply (\(ClientVersusCurl.words) text deltas), "
                + "start to exit, medians")
        if let chat {
            print("  reply \(chat.replyBytes) bytes of SSE, \(chat.rounds) rounds, server in its own process")
            print(
                "  curl \(Self.milliseconds(median(chat.curlProcess.wall))) (CPU "
                    + "\(Self.milliseconds(median(chat.curlProcess.cpu)))), chatstream chat "
                    + (chat.chatProcess.map {
                        "\(Self.milliseconds(median($0.wall))) (CPU \(Self.milliseconds(median($0.cpu))))"
                    } ?? "n/a"))
            print(
                "  chatstream chat / curl: time \(Self.number(chat.processTimeRatio)) (\(Self.chatTarget.text) "
                    + "\(Self.verdict(Self.chatTarget, chat.processTimeRatio))), CPU \(Self.number(chat.processCPURatio))"
                    + "; the warm in-process client / curl's time to the last byte: \(Self.number(chat.timeRatio))")
        }
        notMeasured(3)

        print("\n4. chatstream replay --output message: peak RSS (/usr/bin/time) / the text it holds")
        for row in memory {
            print(
                pad("  \(row.name)", 50, right: false) + " text \(Self.mebibytes(row.textBytes)), peak "
                    + "\(Self.mebibytes(row.peakBytes)) (\(Self.mebibytes(row.baseBytes)) on a tiny stream): "
                    + "\(Self.number(row.ratio)) (\(Self.memoryTarget.text) \(Self.verdict(Self.memoryTarget, row.ratio)))"
            )
        }
        notMeasured(4)

        print(
            "\n5. the server (chatstream serve, file store), wrk -t2 --latency, 64 connections, "
                + "the round of median p99 (the routes alternate)")
        for load in server {
            let summary = load.summary
            let rounds =
                load.rounds.count > 1
                ? "; p99 of the \(load.rounds.count) rounds "
                    + load.rounds.map { Self.milliseconds($0.p99) }.joined(separator: ", ")
                : ""
            print(
                pad("  \(load.route), \(load.seconds) s", 28, right: false)
                    + " \(String(format: "%.0f", summary.requestsPerSecond)) req/s, p50 "
                    + "\(Self.milliseconds(summary.p50)), p99 \(Self.milliseconds(summary.p99)) (< 50 ms "
                    + "\(Self.verdict(Self.latencyTarget, summary.p99)))\(summary.errors > 0 ? ", \(summary.errors) errors" : "")"
                    + rounds
            )
        }
        notMeasured(5)

        let all = verdicts
        let holding = all.filter { $0.target.holds($0.value) == true }.count
        print(
            "\n\(holding) of \(all.count) targets hold\(missing.isEmpty ? "" : "; sections not measured: \(missing.keys.sorted())")"
        )
    }

    func printJSON() {
        let (cpu, cores) = Report.machine()
        var object: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: started), "machine": ["cpu": cpu, "cores": cores],
            "loadBefore": loadBefore, "loadAfter": loadAfter, "seconds": seconds, "quick": options.quick,
            "chatstream": chatstream ?? NSNull(), "scheduling": priority,
            "decoder": (try? SimdjsonColumn.selfPath()) ?? NSNull(),
            "notMeasured": Dictionary(uniqueKeysWithValues: missing.map { ("\($0.key)", $0.value) }),
        ]
        object["formats"] = formats.map { row -> [String: Any] in
            [
                "name": row.name, "format": row.format, "toolInput": row.tool, "bytes": row.bytes, "runs": formatRuns,
                "cpuSeconds": ["simdjson": row.peer, "chatstream": row.ours, "yajlCopy": row.yajl],
                "startupCPUSeconds": [
                    "simdjson": row.peerStart, "chatstream": row.oursStart, "yajlCopy": row.yajlStart,
                ],
                "overSimdjson": row.netRatio, "overYajlCopy": row.yajlRatio, "wholeProcessOverSimdjson": row.wholeRatio,
                "target": Self.formatTarget.text,
            ]
        }
        if let startup {
            object["startup"] = [
                "runs": startup.runs, "catWall": median(startup.catWall), "catCPU": median(startup.catCPU),
                "replayWall": median(startup.replayWall), "replayCPU": median(startup.replayCPU),
                "timeRatio": startup.timeRatio ?? NSNull(), "cpuRatio": startup.cpuRatio ?? NSNull(),
                "target": Self.startupTarget.text,
            ]
        }
        if let chat {
            object["chat"] = [
                "rounds": chat.rounds, "replyBytes": chat.replyBytes, "curlWall": median(chat.curlProcess.wall),
                "curlCPU": median(chat.curlProcess.cpu),
                "chatWall": chat.chatProcess.map { median($0.wall) } ?? NSNull(),
                "chatCPU": chat.chatProcess.map { median($0.cpu) } ?? NSNull(),
                "timeRatio": chat.processTimeRatio ?? NSNull(), "cpuRatio": chat.processCPURatio ?? NSNull(),
                "inProcessTimeRatio": chat.timeRatio ?? NSNull(), "target": Self.chatTarget.text,
            ]
        }
        object["memory"] = memory.map { row -> [String: Any] in
            [
                "name": row.name, "streamBytes": row.streamBytes, "textBytes": row.textBytes,
                "peakBytes": row.peakBytes,
                "tinyStreamPeakBytes": row.baseBytes, "ratio": row.ratio, "target": Self.memoryTarget.text,
            ]
        }
        object["server"] = server.map { load -> [String: Any] in
            [
                "route": load.route, "connections": load.connections, "seconds": load.seconds,
                "requestsPerSecond": load.summary.requestsPerSecond, "p50": load.summary.p50, "p99": load.summary.p99,
                "errors": load.summary.errors, "target": "p99 " + Self.latencyTarget.text,
                "rounds": load.rounds.map {
                    ["requestsPerSecond": $0.requestsPerSecond, "p50": $0.p50, "p99": $0.p99]
                },
            ]
        }
        object["verdicts"] = verdicts.map { item -> [String: Any] in
            [
                "figure": item.figure, "value": item.value ?? NSNull(), "target": item.target.text,
                "holds": item.target.holds(item.value) ?? NSNull(),
            ]
        }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}
