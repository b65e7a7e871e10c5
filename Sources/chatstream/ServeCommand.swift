/// `chatstream serve` (issue 4).
enum ServeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        Output.standardError("error: serve is not available in this build\n")
        return 2
    }
}
