// IssueReport+Processes: the report's figures 2, 4 and 5, each from child processes of the CLI.
//
// - Start-up: `cat FILE` and `chatstream replay FILE --output text` of a one-line NDJSON stream,
//   alternately, after one run of each not counted; replay's output is checked first.
// - Memory: `replay --output message` under `/usr/bin/time -f %M`, its standard input a pipe this
//   process writes the generated stream into. The peak comes from time, not from this process's
//   wait4: a child started by posix_spawn (vfork) inherits the spawning process's peak resident size
//   at exec, which would count this bench's own heap.
// - The server: `chatstream serve` on a free loopback port with a file store (its own folder),
//   twenty conversations for the list's device, then wrk with the scripts below, the routes in
//   alternation for each round.

import ChatStreamBenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension IssueReport {
    // MARK: Start-up

    static func measureStartup(chatstream: String, runs: Int, work: URL, progress: (String) -> Void) throws -> Startup {
        guard let cat = ChildProcess.find("cat") else { throw ReportError("cat is not on PATH") }
        // One complete reply in one line (an Ollama NDJSON line; a server-sent event stream needs
        // its end too, or replay reports it truncated), its format detected as a user's would be.
        let file = work.appendingPathComponent("one-line.ndjson").path
        let line =
            #"{"model":"llama3.2","created_at":"2026-12-02T10:00:00Z","message":{"role":"assistant","content":"Hello"},"#
            + #""done":true}"# + "\n"
        try Data(line.utf8).write(to: URL(fileURLWithPath: file))
        let replay = [chatstream, "replay", file, "--output", "text"]
        let printed = work.appendingPathComponent("replay.out").path
        let check = try ChildProcess.run(replay, output: printed, error: printed)
        let text = (try? String(contentsOfFile: printed, encoding: .utf8)) ?? ""
        guard check.status == 0, text.contains("Hello") else {
            throw ReportError("\(replay.joined(separator: " ")) failed (status \(check.status)): \(text)")
        }
        progress("start-up: \(runs) runs each of cat and chatstream replay on a one-line stream")
        _ = try ChildProcess.run([cat, file])
        var startup = Startup(runs: runs)
        for _ in 0..<runs {
            let catExit = try ChildProcess.run([cat, file])
            let replayExit = try ChildProcess.run(replay)
            guard catExit.status == 0, replayExit.status == 0 else { throw ReportError("cat or replay failed") }
            startup.catWall.append(catExit.wallSeconds)
            startup.catCPU.append(catExit.cpuSeconds)
            startup.replayWall.append(replayExit.wallSeconds)
            startup.replayCPU.append(replayExit.cpuSeconds)
        }
        return startup
    }

    // MARK: Memory

    /// The three memory rows: 17-byte deltas at `mebibytes` (the target's), 64 KiB deltas and
    /// `--json` at up to 128 MiB.
    static func measureMemory(chatstream: String, mebibytes: Int, work: URL, progress: (String) -> Void) throws
        -> [Memory]
    {
        let time = "/usr/bin/time"
        guard access(time, X_OK) == 0 else { throw ReportError("\(time) is missing (apt-get install time)") }
        let small = "hello world again"  // 17 bytes
        let large = String(
            repeating: "abcdefghijklmnopqrstuvwxyz0123456789+-=/", count: 65_536 / 40 + 1
        ).prefix(65_536)
        let other = min(mebibytes, 128)
        var rows: [Memory] = []
        // `--json` on the issue's stream (the 1 GiB one): on 128 MiB (32 MiB of text) the runtime's
        // own 10 MiB was a third of the ratio.
        for (name, delta, size, json) in [
            ("UI stream, 17-byte deltas", small, mebibytes, false),
            ("UI stream, 64 KiB deltas", String(large), other, false),
            ("UI stream, 17-byte deltas, --json", small, mebibytes, true),
        ] {
            progress("memory: replay --output message\(json ? " --json" : "") of \(size) MiB, \(name)")
            let base = try peakOfReplay(
                chatstream: chatstream, time: time, delta: "Hi", streamBytes: 0, json: json, work: work)
            let run = try peakOfReplay(
                chatstream: chatstream, time: time, delta: delta, streamBytes: size << 20, json: json, work: work)
            rows.append(
                Memory(
                    name: "\(size) MiB \(name)", streamBytes: run.streamBytes, textBytes: run.textBytes,
                    peakBytes: run.peak, baseBytes: base.peak))
        }
        return rows
    }

    /// One replay of a UI stream of `delta` repeated to about `streamBytes` (at least once).
    static func peakOfReplay(
        chatstream: String, time: String, delta: String, streamBytes: Int, json: Bool, work: URL
    ) throws -> (peak: Int, streamBytes: Int, textBytes: Int) {
        let head = Array(
            (#"data: {"type":"start","messageId":"m1"}"# + "\n\n" + #"data: {"type":"text-start","id":"t1"}"# + "\n\n")
                .utf8)
        let tail = Array(
            (#"data: {"type":"text-end","id":"t1"}"# + "\n\n" + #"data: {"type":"finish","finishReason":"stop"}"#
                + "\n\ndata: [DONE]\n\n").utf8)
        let event = Array((#"data: {"type":"text-delta","id":"t1","delta":""# + delta + "\"}\n\n").utf8)
        let count = max(1, (streamBytes - head.count - tail.count) / event.count)
        let perBlock = max(1, (1 << 20) / event.count)
        var block: [UInt8] = []
        block.reserveCapacity(perBlock * event.count)
        for _ in 0..<min(perBlock, count) { block += event }

        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ReportError("pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let peakFile = work.appendingPathComponent("peak.txt").path
        let errors = work.appendingPathComponent("replay-errors.txt").path
        var arguments = [
            time, "-f", "%M", "-o", peakFile, chatstream, "replay", "-", "--format", "ui-message-stream", "--output",
            "message",
        ]
        if json { arguments.append("--json") }
        let child: ChildProcess
        do {
            child = try ChildProcess.start(arguments, error: errors, input: ends[0], closing: [ends[0], ends[1]])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])
        func feed(_ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(ends[1], raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { return false }
                    offset += written
                }
                return true
            }
        }
        var written = head.count + tail.count
        var ok = feed(head)
        var left = count
        while ok && left > 0 {
            let take = min(left, perBlock)
            ok = take == perBlock ? feed(block) : feed(Array(block[0..<(take * event.count)]))
            written += take * event.count
            left -= take
        }
        if ok { ok = feed(tail) }
        close(ends[1])
        let exit = child.wait()
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        guard ok, exit.status == 0 else {
            throw ReportError("replay --output message failed (status \(exit.status)): \(said.prefix(300))")
        }
        let text = (try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? ""
        guard let kibibytes = text.split(separator: "\n").last.flatMap({ Int($0) }) else {
            throw ReportError("\(time) gave no peak: \(text)")
        }
        return (kibibytes * 1024, written, count * delta.utf8.count)
    }

    // MARK: The server

    static let listScript = """
        wrk.method = "GET"
        wrk.path = "/api/sdk/agents/demo-agent/conversations?limit=20"
        wrk.headers["X-Device-Id"] = "bench-list"
        """
    /// A new conversation each time from a device of its own, so the list stays the same size and
    /// no identity reaches the server's conversation quota.
    static let chatScript = """
        wrk.method = "POST"
        wrk.path = "/api/sdk/agents/demo-agent/chat"
        wrk.headers["Content-Type"] = "application/json"
        wrk.body = '{"message":"hello there, how are you?","stream":true}'
        local counter = 0
        request = function()
            counter = counter + 1
            wrk.headers["X-Device-Id"] = "bench-chat-" .. tostring(math.random(1, 1e9)) .. "-" .. counter
            return wrk.format()
        end
        """

    static func measureServer(
        chatstream: String, seconds: Int, rounds: Int, work: URL, progress: (String) -> Void
    ) throws -> [Load] {
        guard let wrk = ChildProcess.find("wrk") else { throw ReportError("wrk is not on PATH (apt-get install wrk)") }
        guard let curl = ChildProcess.find("curl") else { throw ReportError("curl is not on PATH") }
        let port = try freeLoopbackPort()
        let base = "http://127.0.0.1:\(port)"
        let log = work.appendingPathComponent("serve.log").path
        let server = try ChildProcess.start(
            [
                chatstream, "serve", "--port", "\(port)", "--delay-ms", "0", "--data",
                work.appendingPathComponent("store.sqlite").path, "--max-connections", "600",
                "--max-connections-per-address", "600",
            ], output: log, error: log)
        defer {
            kill(server.pid, SIGTERM)
            _ = server.wait()
        }
        let deadline = Clock.nanoseconds() + 30_000_000_000
        while try ChildProcess.run([curl, "-s", "-o", "/dev/null", base + "/"]).status != 0 {
            if let exit = server.poll() {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw ReportError("chatstream serve ended (status \(exit.status)): \(said.prefix(300))")
            }
            guard Clock.nanoseconds() < deadline else { throw ReportError("chatstream serve did not answer in 30 s") }
            usleep(50_000)
        }
        for index in 1...20 {
            let exit = try ChildProcess.run([
                curl, "-sf", "-o", "/dev/null", "-H", "X-Device-Id: bench-list", "-H", "Content-Type: application/json",
                "-d", #"{"message":"seed \#(index)","stream":false}"#, base + "/api/sdk/agents/demo-agent/chat",
            ])
            guard exit.status == 0 else { throw ReportError("seeding the list failed (curl status \(exit.status))") }
        }
        let routes = [("list", listScript), ("streamed chat", chatScript)]
        var runs: [[WrkSummary]] = routes.map { _ in [] }
        for round in 1...max(1, rounds) {
            for (index, (route, script)) in routes.enumerated() {
                progress("server: wrk, 64 connections, \(seconds) s, \(route), round \(round) of \(rounds)")
                let scriptFile = work.appendingPathComponent("load.lua").path
                try Data(script.utf8).write(to: URL(fileURLWithPath: scriptFile))
                let output = work.appendingPathComponent("wrk.out").path
                let exit = try ChildProcess.run(
                    [wrk, "-t2", "-c64", "-d\(seconds)s", "--timeout", "10s", "--latency", "-s", scriptFile, base],
                    output: output, error: output)
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                guard exit.status == 0, let summary = WrkSummary(wrkOutput: text) else {
                    throw ReportError("wrk on \(route) failed (status \(exit.status)): \(text.prefix(300))")
                }
                runs[index].append(summary)
            }
        }
        return zip(routes, runs).map { route, summaries in
            let median = summaries.sorted { $0.p99 < $1.p99 }[summaries.count / 2]
            return Load(route: route.0, connections: 64, seconds: seconds, summary: median, rounds: summaries)
        }
    }

    /// A loopback port nothing listens on now (bound to port 0, then closed).
    static func freeLoopbackPort() throws -> Int {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ReportError("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw ReportError("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
