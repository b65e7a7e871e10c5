// `chatstream chat [--base-url URL] [--agent ID] [--conversation ID] [--json] MESSAGE`
//
// Prints the reply text as it streams (flushed per delta), a newline, then the conversation ID
// alone on a line of stderr; exit 0. `--json` prints exactly one line instead:
// `{"conversationId","userMessageId","finishReason","usage","message"}` (message as
// `AssembledMessage.jsonValue`). No `--base-url`: an embedded local server keeps its state in the
// data directory, so `chatstream conversations` lists what `chat` started.

import ChatStream
import ChatStreamClient

enum ChatCommand {
    static let command = Command(
        "chat", operands: "MESSAGE",
        flags: [.baseURL, .agent, .value("conversation", "ID"), .json],
        summary: "send a message and stream the reply; the conversation ID goes to stderr",
        run: run)

    @Sendable static func printDelta(_ delta: String) {
        Output.standardOutput(delta)
        Output.flush()
    }

    @Sendable static func run(_ parsed: ArgumentParser) async throws -> Int32 {
        try parsed.expectPositional(1, "exactly one MESSAGE", command: "chat")
        let message = parsed.positional[0]
        let conversationId = parsed.value("conversation")
        let json = parsed.has("json")
        let made = try ClientSupport.makeClient(parsed)
        defer { made.finish() }
        let client = made.client
        let onTextDelta: (@Sendable (String) -> Void)? = json ? nil : printDelta
        do {
            let response = try await client.sendMessage(
                message, conversationId: conversationId, onTextDelta: onTextDelta)
            if json {
                Output.standardOutput(response.jsonValue.jsonText + "\n")
            } else {
                Output.standardOutput("\n")
                Output.standardError(response.conversationId + "\n")
            }
            return 0
        } catch {
            if !json, (error as? ChatError)?.partialMessage?.text.isEmpty == false { Output.standardOutput("\n") }
            if let id = (error as? ChatError)?.partialMessage?.conversationId ?? client.currentConversationId {
                Output.standardError(id + "\n")
            }
            return ClientSupport.report(error)
        }
    }
}
