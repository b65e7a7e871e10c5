// `chatstream sync [--base-url URL] [--agent ID] [--json]`
//
// Sends the outbox of the client's cache (messages `chat` queued when the server could not be
// reached), each with its clientMessageId, so a message the server already took is not stored
// twice. Each delivered reply is printed as `chat` prints it (the text, then the conversation ID
// on stderr; `--json`: one line per reply). A message still waiting or refused is named on
// stderr (`pending: <id>: <why>`, `failed: <id>: <why>`). Exit 0 when the outbox is empty
// afterwards, 1 otherwise.

import ChatStream
import ChatStreamClient

enum SyncCommand {
    static let command = Command(
        "sync", flags: [.baseURL, .agent, .json],
        summary: "send the messages chat queued while the server was unreachable; exit 0 when none remain",
        run: run)

    @Sendable static func run(_ parsed: ArgumentParser) async throws -> Int32 {
        try parsed.expectPositional(0, "no positional arguments", command: "sync")
        let json = parsed.has("json")
        let made = try ClientSupport.makeClient(parsed)
        defer { made.finish() }
        let flush = try await made.client.flushOutbox()
        for delivery in flush.delivered {
            if json {
                Output.standardOutput(delivery.response.jsonValue.jsonText + "\n")
            } else {
                Output.standardOutput(delivery.response.message.text + "\n")
                Output.flush()
                Output.standardError(delivery.response.conversationId + "\n")
            }
        }
        Output.flush()
        for message in flush.remaining {
            Output.standardError(
                "\(message.state.rawValue): \(message.clientMessageId): \(message.lastError ?? "not sent")\n")
        }
        return flush.remaining.isEmpty ? 0 : 1
    }
}
