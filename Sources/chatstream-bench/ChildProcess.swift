// ChildProcess: a program run by the report (valgrind, curl, chatstream, this bench as the server),
// with its wall time and its CPU time from wait4.
//
// posix_spawn, not Foundation's Process: the report needs the child's own rusage (user + system
// CPU), which only wait4 gives, and a reaped child's times are its own, never this process's.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A started child process.
struct ChildProcess {
    /// How a finished child ended and what it cost.
    struct Exit {
        /// The exit status (128 + the signal number when a signal ended it).
        var status: Int32
        /// From start to reaping, in seconds.
        var wallSeconds: Double
        /// User + system CPU of the child, in seconds (wait4).
        var cpuSeconds: Double
        /// The child's peak resident set size, in bytes (wait4's `ru_maxrss`).
        var peakResidentBytes: Int = 0
    }

    let pid: pid_t
    let started: UInt64

    /// Starts `arguments[0]` (looked up on PATH) with the rest as its arguments. Standard output
    /// and error go to the files at `output` and `error` (created or truncated; nil: /dev/null);
    /// standard input is `input` when given (a descriptor this process keeps), else /dev/null.
    /// `environment` entries replace or add to this process's environment.
    static func start(
        _ arguments: [String], output: String? = nil, error: String? = nil, input: Int32? = nil,
        closing: [Int32] = [], environment: [String: String] = [:]
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        redirect(1, to: output ?? "/dev/null", in: &actions)
        redirect(2, to: error ?? "/dev/null", in: &actions)
        for descriptor in closing { posix_spawn_file_actions_addclose(&actions, descriptor) }

        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        BenchPriority.applyToThisThread()  // the child inherits this thread's nice value
        let started = Clock.nanoseconds()
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard status == 0 else {
            throw ReportError("cannot start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        return ChildProcess(pid: pid, started: started)
    }

    /// Makes `path` the child's descriptor `target`. "/dev/stdout" and "/dev/stderr" are this
    /// process's own descriptors, given to the child as they are: reopened by name inside
    /// posix_spawn's child, their /proc/self link does not resolve on every kernel (here it failed
    /// with ENOENT, so the report could not build its simdjson program on a fresh machine).
    private static func redirect(
        _ target: Int32, to path: String, in actions: inout posix_spawn_file_actions_t
    ) {
        switch path {
        case "/dev/stdout": posix_spawn_file_actions_adddup2(&actions, 1, target)
        case "/dev/stderr": posix_spawn_file_actions_adddup2(&actions, 2, target)
        default: posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
    }

    /// Waits for the child to end (blocking this thread) and reaps it.
    func wait() -> Exit {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        return exit(status: status, usage: usage)
    }

    /// The child's exit when it has ended, without blocking; nil while it runs.
    func poll() -> Exit? {
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, WNOHANG, &usage) == pid else { return nil }
        return exit(status: status, usage: usage)
    }

    private func exit(status: Int32, usage: rusage) -> Exit {
        let wall = Double(Clock.nanoseconds() - started) / 1e9
        let cpu = ChildProcess.seconds(usage.ru_utime) + ChildProcess.seconds(usage.ru_stime)
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (the C macros do not import).
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        #if canImport(Darwin)
            let peak = Int(usage.ru_maxrss)  // bytes on Darwin
        #else
            let peak = Int(usage.ru_maxrss) * 1024  // KiB on Linux
        #endif
        return Exit(status: code, wallSeconds: wall, cpuSeconds: cpu, peakResidentBytes: peak)
    }

    static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }

    /// Runs `arguments` to the end.
    static func run(
        _ arguments: [String], output: String? = nil, error: String? = nil, environment: [String: String] = [:]
    ) throws -> Exit {
        try start(arguments, output: output, error: error, environment: environment).wait()
    }

    /// The full path of `program` on PATH, or nil.
    static func find(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// A failure of the report's set-up (a child that would not start or failed), with what and why.
struct ReportError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
