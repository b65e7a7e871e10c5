// chatstream: the command-line tool.
//
//   chatstream replay [--format F] [--chunk-size N] [--output message|events|text|none] [--json] FILE|-
//   chatstream serve [--host H] [--port P] [--agent ID] [--data FILE] ...
//   chatstream chat [--base-url URL] [--agent ID] [--conversation ID] [--json] MESSAGE
//   chatstream conversations | messages | conversation | close | tag | read ...
//
// Exit status: 0 success, 1 a stream or API error, 2 usage error, 65 malformed input.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "help" : arguments.removeFirst()
let status: Int32
switch command {
case "replay": status = ReplayCommand.run(arguments)
case "serve": status = ServeCommand.run(arguments)
case "chat": status = ChatCommand.run(arguments)
case "conversations", "messages", "conversation", "close", "tag", "read":
    status = HistoryCommands.run(command, arguments)
case "help", "--help", "-h":
    Output.standardOutput(Usage.text)
    status = 0
default:
    Output.standardError("error: unknown command \"\(command)\"\n" + Usage.text)
    status = 2
}
Output.flush()
exit(status)
