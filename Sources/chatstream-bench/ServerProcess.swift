// ServerProcess: the local server in a process of its own, for the report's client-against-curl
// figure (its CPU must not mix with the client's, which the report reads from getrusage of this
// process).
//
// The child is this executable with `--serve-child`: ChatAPIServer on a free loopback port, no
// pacing, an in-memory store; it prints `port N` and serves until its standard input closes, so it
// ends with the report even when the report is killed.

import ChatStreamServer
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

final class ServerProcess {
    let child: ChildProcess
    let port: Int
    private var input: Int32

    private init(child: ChildProcess, port: Int, input: Int32) {
        self.child = child
        self.port = port
        self.input = input
    }

    /// The child's side (`--serve-child`): serves until standard input reaches its end.
    static func serveUntilInputCloses() -> Int32 {
        var configuration = ChatAPIServer.Configuration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.replyDelay = .zero
        let server = ChatAPIServer(configuration: configuration)
        do {
            try server.start()
        } catch {
            print("error: cannot start the server: \(error)")
            return 1
        }
        FileHandle.standardOutput.write(Data("port \(server.port)\n".utf8))
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count > 0 || (count < 0 && errno == EINTR) { continue }
            break
        }
        server.stop()
        return 0
    }

    /// Starts the child and waits (up to 30 s) for its port.
    static func start() throws -> ServerProcess {
        guard let executable = Bundle.main.executableURL?.path else { throw ReportError("no path to this executable") }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ReportError("pipe: \(String(cString: strerror(errno)))") }
        // Only the server holds the reading end; no other child inherits the writing end.
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatstream-report-port-\(getpid())"
        )
        .path
        defer { unlink(portFile) }
        let child: ChildProcess
        do {
            child = try ChildProcess.start(
                [executable, "--serve-child"], output: portFile, input: ends[0], closing: [ends[0], ends[1]])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])
        let deadline = Clock.nanoseconds() + 30_000_000_000
        while Clock.nanoseconds() < deadline {
            let text = (try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("port ") }),
                let port = Int(line.dropFirst(5))
            {
                return ServerProcess(child: child, port: port, input: ends[1])
            }
            if let exit = child.poll() {
                close(ends[1])
                throw ReportError("the server child ended (status \(exit.status)): \(text)")
            }
            usleep(20_000)
        }
        close(ends[1])
        kill(child.pid, SIGTERM)
        _ = child.wait()
        throw ReportError("the server child printed no port in 30 s")
    }

    /// Closes the child's standard input and reaps it.
    func stop() {
        guard input >= 0 else { return }
        close(input)
        input = -1
        _ = child.wait()
    }

    deinit { stop() }
}
