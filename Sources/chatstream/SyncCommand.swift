// `chatstream sync [--base-url URL] [--agent ID] [--json]`
//
// Sends the outbox of the client's cache (messages `chat` queued when the server could not be
// reached), each with its clientMessageId, so a message the server already took is not stored
// twice. Then it completes the replies a killed `chat` left in flight (recorded in the cache),
// from the server's resume route or history, into the cache. Each delivered or completed reply is
// printed as `chat` prints it (the text, then the conversation ID on stderr; `--json`: one line
// per reply). A message still waiting or refused is named on stderr (`pending: <id>: <why>`,
// `failed: <id>: <why>`), a reply still in flight too (`in flight: <conversation> <message>: ...`).
// Exit 0 when the outbox is empty and no reply is in flight afterwards, 1 otherwise.

import ChatStream
import ChatStreamClient

enum SyncCommand {
    static let command = Command(
        "sync", flags: [.baseURL, .agent, .json],
        summary: "send the messages chat queued and complete the replies a killed chat left; exit 0 when none remain",
        run: run)

    @Sendable static func run(_ parsed: ArgumentParser) async throws -> Int32 {
        try parsed.expectPositional(0, "no positional arguments", command: "sync")
        let json = parsed.has("json")
        let made = try ClientSupport.makeClient(parsed)
        defer { made.finish() }
        let flush = try await made.client.flushOutbox()
        let completed = try await made.client.completeRepliesInFlight()
        for response in flush.delivered.map(\.response) + completed {
            if json {
                Output.standardOutput(response.jsonValue.jsonText + "\n")
            } else {
                Output.standardOutput(response.message.text + "\n")
                Output.flush()
                Output.standardError(response.conversationId + "\n")
            }
        }
        Output.flush()
        for message in flush.remaining {
            Output.standardError(
                "\(message.state.rawValue): \(message.clientMessageId): \(message.lastError ?? "not sent")\n")
        }
        let inFlight = try made.client.repliesInFlight()
        for reply in inFlight {
            Output.standardError(
                "in flight: \(reply.conversationId) \(reply.messageId): the server cannot be reached\n")
        }
        return flush.remaining.isEmpty && inFlight.isEmpty ? 0 : 1
    }
}
