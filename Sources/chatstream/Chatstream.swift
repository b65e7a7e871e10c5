// chatstream: the command-line tool. The commands and their flags are in CommandTable.swift;
// `chatstream help` prints them.
//
// Exit status: 0 success, 1 a stream or API error, 2 usage error, 65 malformed input,
// 66 unreadable input.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
struct Chatstream {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let name = arguments.isEmpty ? "help" : arguments.removeFirst()
        let status = await run(name, arguments)
        Output.flush()
        PeakMemory.reportIfAsked()
        exit(status)
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
        if arguments.prefix(while: { $0 != "--" }).contains("--help") {
            Output.standardOutput(command.usage)
            for line in command.summary { Output.standardOutput("  " + line + "\n") }
            return 0
        }
        return await command(arguments)
    }
}
