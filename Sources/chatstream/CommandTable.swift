// CommandTable: every `chatstream` command, in the order `help` lists them.
//
// Adding a command is one file that defines its `Command` (name, operands, flags, summary, run)
// and one line in `commands` below; the dispatcher and the usage text follow from the table.

enum CommandTable {
    /// Every command. Add a new one here.
    static let commands: [Command] = [
        ReplayCommand.command,
        ServeCommand.command,
        ChatCommand.command,
        SyncCommand.command,
        HistoryCommands.conversations,
        HistoryCommands.messages,
        HistoryCommands.conversation,
        HistoryCommands.close,
        HistoryCommands.tag,
        HistoryCommands.read,
        EventsCommand.command,
    ]

    /// The command named `name`.
    static func command(named name: String) -> Command? {
        commands.first { $0.name == name }
    }

    /// The text `chatstream help` prints: every command with its flags and summary, then the
    /// contract every command shares.
    static var help: String {
        var text = "usage: chatstream <command> [options]\ncommands:\n"
        for command in commands {
            text += "  " + command.synopsis(indent: 2) + "\n"
            for line in command.summary { text += "      " + line + "\n" }
        }
        text += """
              help [COMMAND]
                  print this text, or one command's usage (also: chatstream COMMAND --help)
            without --base-url the client commands start the local server in-process, keeping its data
            and the device ID in $XDG_DATA_HOME/chatstream on Linux (default ~/.local/share/chatstream)
            exit status: 0 success, 1 stream or API error (error: <STATUS> <CODE>: <message>), 2 usage error,
                         65 malformed input, 66 unreadable input

            """
        return text
    }
}
