// chatstream: the command-line tool. The commands and their flags are in CommandTable.swift;
// `chatstream help` prints them.
//
// Exit status: 0 success, 1 a stream or API error, 2 usage error, 65 malformed input,
// 66 unreadable input.

import ChatStreamClient
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
struct Chatstream {
    /// A synchronous command (`replay`) runs on the main thread before the concurrency
    /// runtime starts its threads; the others run in a task on the main thread as well
    /// (CallingThreadExecutor), or, on an Apple OS without task executors, in a task while the
    /// main thread serves the main queue.
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let name = arguments.isEmpty ? "help" : arguments.removeFirst()
        if let status = runOnThisThread(name, arguments) { finish(status) }
        // The others on this thread too, where the platform has task executors: no thread of the
        // concurrency runtime's pool to start and wake at each step (CallingThreadExecutor).
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            finish(CallingThreadExecutor().run { [arguments] in await run(name, arguments) })
        }
        Task {
            let status = await run(name, arguments)
            finish(status)
        }
        dispatchMain()
    }

    /// Flushes the output, reports the peak memory when asked, and exits with `status`.
    static func finish(_ status: Int32) -> Never {
        Output.flush()
        PeakMemory.reportIfAsked()
        exit(status)
    }

    /// The exit status of a command that runs without concurrency, or nil for the others.
    static func runOnThisThread(_ name: String, _ arguments: [String]) -> Int32? {
        if let command = CommandTable.command(named: name), !asksForHelp(arguments) {
            return command.runOnThisThread(arguments)
        }
        return nil
    }

    /// Whether `--help` comes among a command's flags (before any `--`).
    static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.prefix(while: { $0 != "--" }).contains("--help")
    }

    /// Runs the command `name` (or help) with `arguments`; returns the exit status.
    static func run(_ name: String, _ arguments: [String]) async -> Int32 {
        if ["help", "--help", "-h"].contains(name) {
            if let topic = arguments.first {
                guard let command = CommandTable.command(named: topic) else {
                    Output.standardError("error: unknown command \"\(topic)\"\n" + CommandTable.help)
                    return 2
                }
                Output.standardOutput(command.usage)
            } else {
                Output.standardOutput(CommandTable.help)
            }
            return 0
        }
        guard let command = CommandTable.command(named: name) else {
            Output.standardError("error: unknown command \"\(name)\"\n" + CommandTable.help)
            return 2
        }
        if asksForHelp(arguments) {
            Output.standardOutput(command.usage)
            for line in command.summary { Output.standardOutput("  " + line + "\n") }
            return 0
        }
        return await command(arguments)
    }
}
