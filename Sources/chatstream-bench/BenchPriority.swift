// BenchPriority: `--report` asks the kernel for more of the CPU than other work on the machine.
//
// The report's timed figures are ratios to baselines of the same run, which a parallel build
// slows alike; but the server's p99 at 64 connections is queueing time, and on two cores it
// follows the share of the CPU the server gets, not its own cost. Under a parallel clean build in
// another terminal (another session, so another autogroup: the kernel splits the CPU between
// sessions first) the server got half of it, and its p99 near doubled. So the report, when it may
// (root, or CAP_SYS_NICE), lowers its session's autogroup nice value and its threads' nice value
// to -10 for the run (each child it starts is started from a raised thread, and inherits it), and
// puts the session's value back at exit (or on SIGINT / SIGTERM). The report's first lines say what was done;
// `--default-priority` measures without. Linux only: elsewhere it says it did nothing.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum BenchPriority {
    /// The nice value the report asks for.
    static let raised: Int32 = -10

    /// The nice value raised to, once ``raise()`` did (read by ``applyToThisThread()``).
    nonisolated(unsafe) private static var raisedTo: Int32?

    /// The session autogroup's nice value before the report changed it, put back at exit (a C
    /// global: the exit and signal handlers read it).
    nonisolated(unsafe) private static var savedAutogroup: Int32?

    /// Raises the priority of this process's threads (and, on Linux, of its session's autogroup)
    /// and returns what was done, for the report's header.
    static func raise() -> String {
        #if os(Linux)
            var tasks = 0
            var refused = 0
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            for name in threads {
                guard let tid = id_t(name) else { continue }
                tasks += 1
                if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, raised) != 0 { refused += 1 }
            }
            guard tasks > 0, refused == 0 else {
                return "default priority (raising it needs root or CAP_SYS_NICE)"
            }
            raisedTo = raised
            var said = "nice \(raised)"
            if let before = autogroupNice(), writeAutogroup(raised) {
                savedAutogroup = before
                atexit { BenchPriority.restoreAutogroup() }
                for signalNumber in [SIGINT, SIGTERM] {
                    signal(signalNumber) { number in
                        BenchPriority.restoreAutogroup()
                        _exit(128 + number)
                    }
                }
                said += ", session autogroup nice \(raised) (was \(before))"
            }
            return said + ", so other work on the machine takes less of the CPU the figures need"
        #else
            return "default priority (raised on Linux only)"
        #endif
    }

    /// Gives the calling thread the raised nice value, when ``raise()`` raised it: Linux keeps a
    /// nice value per thread, and a thread started after ``raise()`` by the concurrency pool, not
    /// by a raised thread, has the default. ChildProcess calls it before each spawn, so every
    /// child (the CLI, the server, wrk, curl, the simdjson program) inherits the raised value.
    static func applyToThisThread() {
        #if os(Linux)
            guard let value = raisedTo else { return }
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, value)
        #endif
    }

    #if os(Linux)
        /// The nice value of this session's autogroup (`/autogroup-N nice V`), nil when the kernel
        /// has none.
        static func autogroupNice() -> Int32? {
            guard let text = try? String(contentsOfFile: "/proc/self/autogroup", encoding: .utf8),
                let last = text.split(whereSeparator: \.isWhitespace).last
            else { return nil }
            return Int32(last)
        }

        /// Sets this session's autogroup nice value; false when refused. Only open, write and
        /// close: the signal handler calls it.
        @discardableResult
        static func writeAutogroup(_ value: Int32) -> Bool {
            let descriptor = open("/proc/self/autogroup", O_WRONLY)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            // The value's decimal digits, built without allocating.
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
            return withUnsafeMutableBytes(of: &digits) { buffer -> Bool in
                var count = 0
                var magnitude = abs(Int(value))
                if value < 0 {
                    buffer[0] = UInt8(ascii: "-")
                    count = 1
                }
                let start = count
                repeat {
                    buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                    count += 1
                } while magnitude > 0 && count < buffer.count
                buffer[start..<count].reverse()
                return write(descriptor, buffer.baseAddress, count) == count
            }
        }

        /// Puts the session autogroup's nice value back, once.
        static func restoreAutogroup() {
            guard let saved = savedAutogroup else { return }
            savedAutogroup = nil
            writeAutogroup(saved)
        }
    #endif
}
