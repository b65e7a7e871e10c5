// CallgrindProfiles: this bench run under `valgrind --tool=callgrind` once per `--profile`, and the
// instruction total of each run (CallgrindTotals reads the out file).
//
// Instruction counts do not depend on the machine's load, so the profiles run two at a time (the
// machine's cores, at most 2): the counts are the same as run one by one, in about half the time.

import ChatStreamBenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum CallgrindProfiles {
    /// valgrind's path, when it is on PATH.
    static var valgrind: String? { ChildProcess.find("valgrind") }

    /// Whole-program instructions of each of `profiles` (`chatstream-bench --profile NAME` under
    /// callgrind), by name. `progress` hears each profile as it finishes.
    static func count(
        _ profiles: [String], valgrind: String, jobs: Int, progress: (String) -> Void
    ) throws -> [String: UInt64] {
        guard let executable = Bundle.main.executableURL?.path else { throw ReportError("no path to this executable") }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("chatstream-report-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        var pending = profiles[...]
        var running: [(name: String, child: ChildProcess)] = []
        var totals: [String: UInt64] = [:]
        func outFile(_ name: String) -> String { "\(directory)/\(name).callgrind" }
        while !pending.isEmpty || !running.isEmpty {
            while running.count < max(1, jobs), let name = pending.popFirst() {
                let child = try ChildProcess.start(
                    [
                        valgrind, "--tool=callgrind", "--callgrind-out-file=\(outFile(name))", executable,
                        "--profile", name,
                    ], error: "\(directory)/\(name).log")
                running.append((name, child))
            }
            var finished: [Int] = []
            for (index, run) in running.enumerated() {
                guard let exit = run.child.poll() else { continue }
                finished.append(index)
                let text = (try? String(contentsOfFile: outFile(run.name), encoding: .utf8)) ?? ""
                guard exit.status == 0, let instructions = CallgrindTotals.instructions(in: text) else {
                    let log = (try? String(contentsOfFile: "\(directory)/\(run.name).log", encoding: .utf8)) ?? ""
                    throw ReportError(
                        "callgrind --profile \(run.name): exit \(exit.status), no total in its out file\n"
                            + log.split(separator: "\n").suffix(5).joined(separator: "\n"))
                }
                totals[run.name] = instructions
                progress(
                    "\(run.name): \(Report.millions(instructions)) instructions (\(Report.format(exit.wallSeconds, 0)) s)"
                )
            }
            for index in finished.reversed() { running.remove(at: index) }
            if finished.isEmpty { usleep(20_000) }
        }
        return totals
    }
}
