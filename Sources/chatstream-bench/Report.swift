// Report: the table (default) or one JSON object (--json).

import Foundation

enum Report {
    static func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

    /// `value` in millions with one decimal: `502.6M`.
    static func millions(_ value: UInt64) -> String { format(Double(value) / 1e6, 1) + "M" }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let space = String(repeating: " ", count: width - count)
        return right ? space + text : text + space
    }

    static func machine() -> (cpu: String, cores: Int) {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            info.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown"
        return (model, ProcessInfo.processInfo.activeProcessorCount)
    }

    static func printTable(_ suite: Suite) {
        let (cpu, cores) = machine()
        print("chatstream-bench: \(suite.options.runs) runs per row, median; \(cores) cores, \(cpu)")
        var group = ""
        for row in suite.rows {
            if row.group != group {
                group = row.group
                print("\n\(group)")
                print(
                    pad("", 72) + pad("MB/s", 10, right: true) + pad("events/s", 14, right: true)
                        + pad("ms", 10, right: true) + pad("allocs/event", 14, right: true))
            }
            print(
                pad("  " + row.name, 72) + pad(format(row.megabytesPerSecond, 1), 10, right: true)
                    + pad(format(row.eventsPerSecond, 0), 14, right: true)
                    + pad(format(row.seconds * 1000, 1), 10, right: true)
                    + pad(format(row.allocationsPerEvent, 3), 14, right: true))
        }
        print("\nratios (time of the baseline / time of ours; above 1 means ours is faster)")
        for (name, value) in suite.ratios { print("  " + pad(name, 96) + pad(format(value), 8, right: true)) }
        if let gigabyte = suite.gigabyte {
            print(
                "\n1 GiB stream: \(gigabyte.bytes) bytes, \(gigabyte.events) events, \(gigabyte.messages) messages in "
                    + "\(format(gigabyte.seconds)) s (\(format(Double(gigabyte.bytes) / 1e6 / gigabyte.seconds, 1)) MB/s), "
                    + "peak RSS \(format(Double(gigabyte.peakResidentBytes) / 1_048_576, 1)) MiB")
        }
        print("\ntargets")
        for target in suite.targets {
            print(
                "  " + pad(target.name, 52) + pad(format(target.figure), 10, right: true) + "  "
                    + (target.atLeast ? ">= " : "<= ") + format(target.limit) + "  "
                    + (target.holds ? "holds" : "MISSES"))
        }
        for note in suite.notes { print("note: \(note)") }
        print("peak RSS of the whole run: \(format(Double(peakResidentBytes()) / 1_048_576, 1)) MiB")
    }

    static func printJSON(_ suite: Suite) {
        let (cpu, cores) = machine()
        var object: [String: Any] = [
            "machine": ["cpu": cpu, "cores": cores],
            "runs": suite.options.runs,
            "quick": suite.options.quick,
            "rows": suite.rows.map { row -> [String: Any] in
                [
                    "group": row.group, "name": row.name, "bytes": row.bytes, "events": row.events,
                    "medianSeconds": row.seconds, "seconds": row.measurement.times,
                    "megabytesPerSecond": row.megabytesPerSecond, "eventsPerSecond": row.eventsPerSecond,
                    "allocations": row.measurement.allocations, "allocationsPerEvent": row.allocationsPerEvent,
                ]
            },
            "ratios": Dictionary(suite.ratios, uniquingKeysWith: { a, _ in a }),
            "targets": suite.targets.map { target -> [String: Any] in
                [
                    "name": target.name, "figure": target.figure, "limit": target.limit, "atLeast": target.atLeast,
                    "holds": target.holds,
                ]
            },
            "notes": suite.notes,
            "peakResidentBytes": peakResidentBytes(),
        ]
        if let gigabyte = suite.gigabyte {
            object["gigabyte"] = [
                "bytes": gigabyte.bytes, "events": gigabyte.events, "messages": gigabyte.messages,
                "seconds": gigabyte.seconds,
                "peakResidentBytes": gigabyte.peakResidentBytes,
            ]
        }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}
