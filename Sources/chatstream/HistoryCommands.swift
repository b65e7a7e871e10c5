/// `chatstream conversations`, `messages` and the conversation-management commands (issues 4, 7).
enum HistoryCommands {
    static func run(_ command: String, _ arguments: [String]) -> Int32 {
        Output.standardError("error: \(command) is not available in this build\n")
        return 2
    }
}
