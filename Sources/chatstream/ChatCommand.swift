/// `chatstream chat` (issue 4).
enum ChatCommand {
    static func run(_ arguments: [String]) -> Int32 {
        Output.standardError("error: chat is not available in this build\n")
        return 2
    }
}
