// ClientVersusCurl: ChatbaseClient on its default transport (PlainHTTPTransport for the loopback
// http:// server on Linux) against curl,
// reading the same 600 KB streamed reply from the local server over loopback (issue 22,
// deliverable 2: at most 1.3 times curl's time to the last byte and twice its CPU).
//
// The server runs in a child process (ServerProcess). Each round runs, one after another so they
// meet the same load: curl (`-w '%{time_total}'`: request start to the last byte; CPU from wait4),
// the client in this process (a warm `send`, request start to the finished response; CPU as the
// getrusage(RUSAGE_SELF) delta, this process doing nothing else meanwhile), and, when `chatstream`
// is built beside this executable, `chatstream chat` as a cold process (start to exit, CPU from
// wait4; the curl process's start-to-exit time is its baseline). One of each runs first, not
// counted. Ratios are median over median. A one-word reply, by curl and by the client, runs in each
// round too: what a request costs apart from the reply's bytes, for the marginal CPU ratio.

import ChatStreamBenchSupport
import ChatStreamClient
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct ClientVersusCurl {
    /// Wall and CPU seconds of one side's runs.
    struct Side {
        var wall: [Double] = []
        var cpu: [Double] = []
    }

    var rounds: Int
    /// The reply's size as curl received it.
    var replyBytes: Int
    var textDeltas: Int
    /// curl's `time_total` and its CPU.
    var curl = Side()
    /// The curl process from start to exit (the cold baseline).
    var curlProcess = Side()
    /// The client in this process, warm.
    var client = Side()
    /// `chatstream chat` as a process, when it is built beside this executable.
    var chatProcess: Side? = nil
    /// curl and the client on a one-word reply: the cost of a request apart from the reply's bytes
    /// (curl's includes its start-up).
    var curlOneWord = Side()
    var clientOneWord = Side()
    var transport: String

    var timeRatio: Double? { ratioOfMedians(client.wall, over: curl.wall) }
    var cpuRatio: Double? { ratioOfMedians(client.cpu, over: curl.cpu) }
    var processTimeRatio: Double? { chatProcess.flatMap { ratioOfMedians($0.wall, over: curlProcess.wall) } }
    var processCPURatio: Double? { chatProcess.flatMap { ratioOfMedians($0.cpu, over: curlProcess.cpu) } }
    /// The 600 KB reply's own CPU, each side net of its one-word request: client over curl.
    var marginalCPURatio: Double? {
        let curlBytes = median(curl.cpu) - median(curlOneWord.cpu)
        let clientBytes = median(client.cpu) - median(clientOneWord.cpu)
        guard curlBytes > 0, clientBytes > 0 else { return nil }
        return clientBytes / curlBytes
    }

    /// Words in the message; the server echoes each as one text delta of about 60 bytes of SSE.
    static let words = 10_000

    /// `chatstream` beside this executable, when it is built there.
    static func chatstreamBesideThisExecutable() -> String? {
        guard let directory = Bundle.main.executableURL?.deletingLastPathComponent() else { return nil }
        let chatstream = directory.appendingPathComponent("chatstream").path
        return access(chatstream, X_OK) == 0 ? chatstream : nil
    }

    /// Runs the rounds; `chatstream` is the CLI whose `chat` is timed as a cold process (nil: not measured).
    static func measure(
        rounds: Int, chatstream: String? = chatstreamBesideThisExecutable(), progress: (String) -> Void
    ) async throws -> ClientVersusCurl {
        guard let curlPath = ChildProcess.find("curl") else { throw ReportError("curl is not on PATH") }
        let server = try ServerProcess.start()
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let message = (0..<words).map { String(format: "w%04d", $0 % 10_000) }.joined(separator: " ")

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatstream-report-chat-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let bodyFile = scratch.appendingPathComponent("body.json").path
        let body = try JSONSerialization.data(withJSONObject: ["message": message, "stream": true])
        try body.write(to: URL(fileURLWithPath: bodyFile))
        let curlOut = scratch.appendingPathComponent("curl.out").path
        let oneWordFile = scratch.appendingPathComponent("one-word.json").path
        try JSONSerialization.data(withJSONObject: ["message": "hello", "stream": true])
            .write(to: URL(fileURLWithPath: oneWordFile))
        func curlArguments(_ file: String) -> [String] {
            [
                curlPath, "-sSN", "-o", "/dev/null", "-w", "%{time_total} %{size_download}", "-X", "POST",
                "-H", "Content-Type: application/json", "-H", "Accept: text/event-stream",
                "-H", "X-Device-Id: chatstream-report", "--data-binary", "@" + file,
                "\(base)/agents/demo-agent/chat",
            ]
        }
        func runCurl(_ file: String) throws -> (seconds: Double, bytes: Int, exit: ChildProcess.Exit) {
            let exit = try ChildProcess.run(curlArguments(file), output: curlOut)
            let fields = ((try? String(contentsOfFile: curlOut, encoding: .utf8)) ?? "").split(separator: " ")
            guard exit.status == 0, fields.count == 2, let seconds = Double(fields[0]), let bytes = Int(fields[1])
            else { throw ReportError("curl failed (status \(exit.status))") }
            return (seconds, bytes, exit)
        }

        let client = ChatbaseClient(
            agentId: "demo-agent", baseURL: URL(string: base)!, transport: DefaultHTTPTransport.make(),
            identityStore: InMemoryIdentityStore(), retryPolicy: .none, store: nil)
        let transport = String(describing: type(of: client.transport))
        func runClient(_ message: String) async throws -> (wall: Double, cpu: Double, textBytes: Int) {
            let counted = Atomic<Int>(0)
            let cpuBefore = processCPUSeconds()
            let start = Clock.nanoseconds()
            let response = try await client.send(message) { callbacks in
                callbacks.onTextDelta = { delta in counted.add(delta.utf8.count, ordering: .relaxed) }
            }
            let wall = Double(Clock.nanoseconds() - start) / 1e9
            let cpu = processCPUSeconds() - cpuBefore
            let textBytes = counted.load(ordering: .relaxed)
            guard textBytes == response.message.text.utf8.count, textBytes > 0 else {
                throw ReportError("the client's reply is not whole (\(textBytes) bytes of text)")
            }
            return (wall, cpu, textBytes)
        }

        let chatArguments = chatstream.map { [$0, "chat", "--base-url", base, message] }
        let chatEnvironment = ["XDG_DATA_HOME": scratch.path, "HOME": scratch.path]
        func runChat(_ arguments: [String]) throws -> ChildProcess.Exit {
            let exit = try ChildProcess.run(arguments, environment: chatEnvironment)
            guard exit.status == 0 else { throw ReportError("chatstream chat failed (status \(exit.status))") }
            return exit
        }

        // Warm-up, not counted: the server's first reply, the client's connection and buffers.
        let first = try runCurl(bodyFile)
        let firstClient = try await runClient(message)
        _ = try runCurl(oneWordFile)
        _ = try await runClient("hello")
        if let chatArguments { _ = try runChat(chatArguments) }

        var result = ClientVersusCurl(
            rounds: rounds, replyBytes: first.bytes, textDeltas: words,
            chatProcess: chatArguments == nil ? nil : Side(),
            transport: transport)
        progress(
            "client vs curl: \(first.bytes) bytes of SSE, \(firstClient.textBytes) bytes of text, \(rounds) rounds")
        for _ in 0..<rounds {
            let curl = try runCurl(bodyFile)
            result.curl.wall.append(curl.seconds)
            result.curl.cpu.append(curl.exit.cpuSeconds)
            result.curlProcess.wall.append(curl.exit.wallSeconds)
            result.curlProcess.cpu.append(curl.exit.cpuSeconds)
            let client = try await runClient(message)
            result.client.wall.append(client.wall)
            result.client.cpu.append(client.cpu)
            let curlOne = try runCurl(oneWordFile)
            result.curlOneWord.wall.append(curlOne.seconds)
            result.curlOneWord.cpu.append(curlOne.exit.cpuSeconds)
            let clientOne = try await runClient("hello")
            result.clientOneWord.wall.append(clientOne.wall)
            result.clientOneWord.cpu.append(clientOne.cpu)
            if let chatArguments {
                let chat = try runChat(chatArguments)
                result.chatProcess?.wall.append(chat.wallSeconds)
                result.chatProcess?.cpu.append(chat.cpuSeconds)
            }
        }
        return result
    }
}

/// User + system CPU of this whole process so far (every thread), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    return ChildProcess.seconds(usage.ru_utime) + ChildProcess.seconds(usage.ru_stime)
}
