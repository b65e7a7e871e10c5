// ChildProcess: the built `chatstream` (or any program) run as a child process, for the CLI tests.
//
// Spawned with posix_spawn and reaped with waitpid. (Not wait4's `ru_maxrss` for a child's peak
// memory: on Linux it includes this process's own peak, recorded when the child's exec replaced
// the memory it shared with this one; `chatstream` reports its own peak when asked, see
// ReplayStreamingTests.) Every pipe end is
// close-on-exec, set under the lock that spawns, so a child spawned at the same time by another
// test never inherits one (which would keep a pipe open and hang the reader). The blocking calls belong on a thread of their own;
// `run` puts them there, so waiting for a child never holds one of the threads async tests share.

import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
    private let systemWrite = Glibc.write
    private let systemPipe = Glibc.pipe
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
    private let systemWrite = Darwin.write
    private let systemPipe = Darwin.pipe
#endif

/// A running child process with pipes to its standard input, output and error.
public final class ChildProcess: @unchecked Sendable {
    /// What a finished child printed and returned.
    public struct Result: Sendable, CustomStringConvertible {
        /// The exit status (128 + the signal number when a signal ended it).
        public var status: Int32
        /// Standard output, as bytes and as UTF-8 text.
        public var output: [UInt8]
        public var stdout: String { String(decoding: output, as: UTF8.self) }
        /// Standard error as UTF-8 text.
        public var stderr: String
        /// How many bytes the child wrote to standard output (kept or not).
        public var outputCount: Int
        /// The output's lines, without their newlines.
        public var lines: [Substring] { stdout.split(separator: "\n") }
        public var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }

        public init(status: Int32, output: [UInt8], stderr: String, outputCount: Int? = nil) {
            self.status = status
            self.output = output
            self.stderr = stderr
            self.outputCount = outputCount ?? output.count
        }
    }

    /// The error a failed spawn or pipe call throws.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The built `chatstream` executable (beside the test bundle, or in `.build/debug`).
    public static var chatstream: String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/chatstream",
            ProjectPaths.root + "/.build/debug/chatstream",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }

    /// The child's process ID.
    public let pid: pid_t
    private var input: Int32
    private let output: Int32
    private let error: Int32
    /// Standard output read so far by ``read(until:timeout:)``, and standard error.
    private var outputBytes: [UInt8] = []
    private var outputCount = 0
    /// Whether standard output is kept (else only counted).
    private var keepsOutput = true
    private var errorBytes: [UInt8] = []
    private var outputOpen = true
    private var errorOpen = true

    /// Starts `executable arguments...` with `environment` added to this process's.
    public init(
        _ executable: String = ChildProcess.chatstream, _ arguments: [String], environment: [String: String] = [:]
    )
        throws
    {
        Self.ignoreBrokenPipes
        // Pipes are made and marked close-on-exec, and the child spawned, under one lock, so a
        // child spawned by another thread never inherits an end before it is marked.
        Self.spawning.lock()
        defer { Self.spawning.unlock() }
        let pipes = try (Self.pipe(), Self.pipe(), Self.pipe())
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipes.0.read, 0)
        posix_spawn_file_actions_adddup2(&actions, pipes.1.write, 1)
        posix_spawn_file_actions_adddup2(&actions, pipes.2.write, 2)
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(pipes.0.read)
        close(pipes.1.write)
        close(pipes.2.write)
        guard status == 0 else {
            close(pipes.0.write)
            close(pipes.1.read)
            close(pipes.2.read)
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        input = pipes.0.write
        output = pipes.1.read
        error = pipes.2.read
    }

    deinit {
        if input >= 0 { close(input) }
        close(output)
        close(error)
    }

    /// Held while a child is spawned (see `init`).
    private static let spawning = NSLock()

    /// A write to a child that has exited fails with EPIPE instead of killing this process.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// A pipe whose two ends are closed on exec.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard systemPipe(&ends) == 0 else {
            throw Failure(description: "pipe failed: \(String(cString: strerror(errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Standard error read so far, as UTF-8 text.
    public var errorSoFar: String { String(decoding: errorBytes, as: UTF8.self) }

    /// Writes `bytes` to the child's standard input (blocking until the pipe takes them all).
    public func write(_ bytes: some Collection<UInt8>) throws {
        try Array(bytes).withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(input, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Failure(description: "write to the child failed: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    /// Closes the child's standard input (it reads end of file).
    public func closeInput() {
        guard input >= 0 else { return }
        close(input)
        input = -1
    }

    /// Reads standard output (and standard error, so the child never blocks on it) until
    /// `condition` holds for the output so far (or `errorCondition` for standard error so far), both
    /// close, or `timeout` passes; returns the output so far.
    @discardableResult
    public func read(
        until condition: ([UInt8]) -> Bool = { _ in false }, orError errorCondition: ([UInt8]) -> Bool = { _ in false },
        timeout: Duration = .seconds(60)
    ) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while (outputOpen || errorOpen) && !condition(outputBytes) && !errorCondition(errorBytes) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            var fds = [
                pollfd(fd: outputOpen ? output : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: errorOpen ? error : -1, events: Int16(POLLIN), revents: 0),
            ]
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 1000))
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0, errno != EINTR { break }
            for index in fds.indices where fds[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { systemRead(fds[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if index == 1 {
                        errorBytes += buffer[0..<count]
                    } else {
                        outputCount += count
                        if keepsOutput { outputBytes += buffer[0..<count] }
                    }
                } else if count == 0 || errno != EINTR {
                    if index == 0 { outputOpen = false } else { errorOpen = false }
                }
            }
        }
        return outputBytes
    }

    /// Reads both outputs to their end (killing the child after `timeout`) and reaps it;
    /// closes its standard input first unless another thread is still writing to it.
    public func wait(timeout: Duration = .seconds(60), closingInput: Bool = true) -> Result {
        if closingInput { closeInput() }
        read(timeout: timeout)
        if outputOpen || errorOpen { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(
            status: exit, output: outputBytes, stderr: String(decoding: errorBytes, as: UTF8.self),
            outputCount: outputCount)
    }

    /// Runs `arguments` to completion on a thread of its own, feeding it `stdin` (nothing: end of
    /// file at once); `environment` is added to this process's.
    public static func run(
        _ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:],
        executable: String = ChildProcess.chatstream, timeout: Duration = .seconds(60)
    ) async throws -> Result {
        var feed: (@Sendable (ChildProcess) throws -> Void)? = nil
        if !stdin.isEmpty {
            feed = { (child: ChildProcess) throws in try child.write(stdin) }
        }
        return try await run(
            arguments, environment: environment, executable: executable, timeout: timeout, feed: feed)
    }

    /// Runs `arguments` to completion on a thread of its own while `feed` writes its standard
    /// input on another (then it is closed); with `keepingOutput` false, standard output is
    /// counted (``Result/outputCount``) but not kept.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], executable: String = ChildProcess.chatstream,
        timeout: Duration = .seconds(60), keepingOutput: Bool = true,
        feed: (@Sendable (ChildProcess) throws -> Void)?
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Swift.Result {
                        let child = try ChildProcess(executable, arguments, environment: environment)
                        child.keepsOutput = keepingOutput
                        guard let feed else { return child.wait(timeout: timeout) }
                        // A writer of its own, so a child that prints before it reads never deadlocks.
                        // A write fails (EPIPE) once the child has stopped reading; that ends the feed.
                        let writer = Thread {
                            try? feed(child)
                            child.closeInput()
                        }
                        writer.start()
                        return child.wait(timeout: timeout, closingInput: false)
                    })
            }
        }
    }
}
