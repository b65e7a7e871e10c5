// PeakMemory: the process's peak resident set size, written at exit to the file named by
// CHATSTREAM_PEAK_MEMORY_FILE (a diagnostic: the replay memory tests read it).
//
// Read from the process itself because its parent cannot see it: on Linux the `ru_maxrss` that
// wait4 reports includes the parent's own peak (exec records the high-water mark of the memory it
// replaces, which for a spawned child is the parent's), while /proc/self/status's VmHWM is this
// program's alone.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum PeakMemory {
    /// The environment variable naming the file.
    static let variable = "CHATSTREAM_PEAK_MEMORY_FILE"

    /// The peak resident set size in bytes, if the system tells it.
    static var bytes: Int? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
            else { return nil }
            return kilobytes * 1024
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss)  // bytes on Darwin
        #endif
    }

    /// Writes ``bytes`` (as decimal digits) to the file the environment names, if it names one.
    static func reportIfAsked() {
        // getenv, not ProcessInfo's dictionary: building that dictionary is the first dynamic
        // generic instantiation of a run, which costs every command a scan of the runtime's
        // conformance records at start (BENCHMARKS.md, "Start-up").
        guard let value = getenv(variable), let bytes else { return }
        let path = String(cString: value)
        try? String(bytes).write(toFile: path, atomically: false, encoding: .utf8)
    }
}
