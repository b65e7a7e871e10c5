// RatioReport+Output: the report as a table (default) or one JSON object (--json).

import ChatStreamBenchSupport
import Foundation

extension RatioReport {
    private var dateText: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: started)
    }

    private static func loads(_ values: [Double]) -> String { values.map { Report.format($0) }.joined(separator: " ") }

    private func unit(_ value: Double) -> String {
        method == .callgrind ? Report.millions(UInt64(max(0, value))) : "-"
    }

    private static func verdict(_ value: Double?, _ limit: Double, atLeast: Bool) -> String {
        guard let value else { return "n/a" }
        return (atLeast ? value >= limit : value <= limit) ? "holds" : "MISSES"
    }

    func printTable() {
        let (cpu, cores) = Report.machine()
        print("chatstream-bench --report: \(dateText), \(cores) cores, \(cpu)")
        print(
            "load average \(Self.loads(loadBefore)) at the start, \(Self.loads(loadAfter)) at the end; "
                + "\(Report.format(seconds, 0)) s")
        print("figures 1 and 2: \(methodNote)")

        func pad(_ text: String, _ width: Int, right: Bool = false) -> String { Report.pad(text, width, right: right) }
        func ceilingTable(_ title: String, _ figures: [CeilingFigure], linear: Bool) {
            print("\n\(title)")
            var head =
                pad("", 28) + pad("ceiling", 12, right: true) + pad("ours", 12, right: true)
                + pad("ceiling/ours", 14, right: true) + pad("target", 9, right: true)
            if linear { head += pad("200k/100k", 11, right: true) }
            print(head)
            for figure in figures {
                var line =
                    pad("  " + figure.name, 28) + pad(unit(figure.ratio.ceilingNet), 12, right: true)
                    + pad(unit(figure.ratio.oursNet), 12, right: true)
                    + pad(figure.ratio.ratio.map { Report.format($0, 3) } ?? "n/a", 14, right: true)
                    + pad(">= " + Report.format(figure.target, 1), 9, right: true) + "  "
                    + Self.verdict(figure.ratio.ratio, figure.target, atLeast: true)
                if linear { line += pad(figure.linearity.map { Report.format($0) } ?? "-", 9, right: true) }
                print(line)
            }
        }
        let deltas = options.quick ? "100,000" : "200,000"
        ceilingTable(
            "1. streamed tool input / copy ceiling (one call in \(deltas) 1-byte deltas, 4 KiB chunks)", toolInput,
            linear: !options.quick && method == .callgrind)
        ceilingTable("2. lent path / its copy ceiling (1 MB replies, 4 KiB chunks)", lent, linear: false)

        print("\n3. client / curl, \(ClientVersusCurl.words) text deltas over loopback, server in its own process")
        if let chat {
            print(
                "  reply \(chat.replyBytes) bytes of SSE; \(chat.rounds) rounds, medians; client on \(chat.transport)")
            func line(_ name: String, _ side: ClientVersusCurl.Side) {
                print(
                    pad("  " + name, 44) + pad(Report.format(median(side.wall) * 1000, 1) + " ms", 12, right: true)
                        + pad(Report.format(median(side.cpu) * 1000, 1) + " ms CPU", 16, right: true))
            }
            line("curl, time_total / CPU (wait4)", chat.curl)
            line("client in this process, warm (getrusage)", chat.client)
            print(
                "  in-process client / curl: time " + (chat.timeRatio.map { Report.format($0) } ?? "n/a") + " (<= 1.3 "
                    + Self.verdict(chat.timeRatio, 1.3, atLeast: false) + "), CPU "
                    + (chat.cpuRatio.map { Report.format($0) } ?? "n/a") + " (<= 2 "
                    + Self.verdict(chat.cpuRatio, 2, atLeast: false) + ")")
            line("curl, one-word reply", chat.curlOneWord)
            line("client, one-word reply", chat.clientOneWord)
            print(
                "  the 600 KB reply's own CPU (each minus its one-word request), client / curl: "
                    + (chat.marginalCPURatio.map { Report.format($0) } ?? "n/a"))
            if let process = chat.chatProcess {
                line("curl process, start to exit", chat.curlProcess)
                line("chatstream chat process, start to exit", process)
                print(
                    "  chatstream chat process / curl process (cold, start-up included): time "
                        + (chat.processTimeRatio.map { Report.format($0) } ?? "n/a") + ", CPU "
                        + (chat.processCPURatio.map { Report.format($0) } ?? "n/a"))
            } else {
                print("  (no chatstream beside this executable: the cold process figure is not measured)")
            }
        } else {
            print("  not measured: \(chatError ?? "unknown")")
        }

        if let delivery {
            print(
                "\n4. main-actor delivery, \(delivery.events) text deltas (1 MB of text), \(delivery.rounds) rounds, medians"
            )
            print(
                "  into ConversationState \(Report.format(delivery.stateEventsPerSecond, 0)) events/s in "
                    + "\(Report.format(delivery.turns, 0)) main-actor turns; off the main actor "
                    + "\(Report.format(delivery.offMainEventsPerSecond, 0)) events/s; ConversationState / off: "
                    + Report.format(delivery.ratio))
        }
    }

    func printJSON() {
        let (cpu, cores) = Report.machine()
        func figure(_ figure: CeilingFigure) -> [String: Any] {
            var object: [String: Any] = [
                "name": figure.name, "profile": figure.profile, "ceiling": figure.ratio.ceiling,
                "ours": figure.ratio.ours, "baseline": figure.ratio.baseline, "target": figure.target,
            ]
            if let ratio = figure.ratio.ratio { object["ratio"] = ratio }
            if let linearity = figure.linearity { object["linearity200kOver100k"] = linearity }
            return object
        }
        var object: [String: Any] = [
            "date": dateText, "machine": ["cpu": cpu, "cores": cores], "loadBefore": loadBefore,
            "loadAfter": loadAfter, "seconds": seconds, "quick": options.quick, "method": method.rawValue,
            "methodNote": methodNote, "toolInput": toolInput.map(figure), "lent": lent.map(figure),
        ]
        if let chat {
            func side(_ side: ClientVersusCurl.Side) -> [String: Any] {
                [
                    "wallSeconds": side.wall, "cpuSeconds": side.cpu, "medianWall": median(side.wall),
                    "medianCPU": median(side.cpu),
                ]
            }
            var chatObject: [String: Any] = [
                "rounds": chat.rounds, "replyBytes": chat.replyBytes, "textDeltas": chat.textDeltas,
                "transport": chat.transport, "curl": side(chat.curl), "client": side(chat.client),
                "curlProcess": side(chat.curlProcess),
            ]
            if let ratio = chat.timeRatio { chatObject["timeRatio"] = ratio }
            if let ratio = chat.cpuRatio { chatObject["cpuRatio"] = ratio }
            if let process = chat.chatProcess { chatObject["chatProcess"] = side(process) }
            if let ratio = chat.processTimeRatio { chatObject["processTimeRatio"] = ratio }
            if let ratio = chat.processCPURatio { chatObject["processCPURatio"] = ratio }
            chatObject["curlOneWord"] = side(chat.curlOneWord)
            chatObject["clientOneWord"] = side(chat.clientOneWord)
            if let ratio = chat.marginalCPURatio { chatObject["marginalCPURatio"] = ratio }
            object["chat"] = chatObject
        } else {
            object["chatError"] = chatError ?? "unknown"
        }
        if let delivery {
            object["mainActor"] = [
                "events": delivery.events, "rounds": delivery.rounds,
                "conversationStateEventsPerSecond": delivery.stateEventsPerSecond,
                "offMainActorEventsPerSecond": delivery.offMainEventsPerSecond, "turns": delivery.turns,
                "ratio": delivery.ratio,
            ]
        }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}
