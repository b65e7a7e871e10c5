// `chatstream chat [--base-url URL] [--agent ID] [--conversation ID] [--json] MESSAGE`
//
// Prints the reply text as it streams (each delta on the terminal within 2 ms: the deltas that
// arrive meanwhile share one write), a newline, then the conversation ID
// alone on a line of stderr; exit 0. `--json` prints exactly one line instead:
// `{"conversationId","userMessageId","finishReason","usage","message"}` (message as
// `AssembledMessage.jsonValue`). No `--base-url`: an embedded local server keeps its state in the
// data directory, so `chatstream conversations` lists what `chat` started.
//
// A reply whose stream breaks (the connection lost or stalled, `serve --drop-after N`) is picked up
// again by the client (PROTOCOLS.md section 8's resume route, else the stored reply from history)
// and printed once, whole.
//
// The message goes with a fresh clientMessageId. When the server cannot be reached (no
// connection, timeout, 429, 5xx, after the retries) it waits in the outbox of the client's cache
// ($XDG_DATA_HOME/chatstream/history.sqlite): `queued: <clientMessageId>` on stderr, exit 75
// (EX_TEMPFAIL); `chatstream sync` sends it.

import ChatStream
import ChatStreamClient
import Foundation

enum ChatCommand {
    static let command = Command(
        "chat", operands: "MESSAGE",
        flags: [.baseURL, .agent, .value("conversation", "ID"), .json],
        summary: "send a message and stream the reply; the conversation ID goes to stderr",
        "server unreachable: kept in the outbox, `queued: <clientMessageId>` on stderr, exit 75 (see sync)",
        run: run)

    /// EX_TEMPFAIL: the message waits in the outbox.
    static let queuedStatus: Int32 = 75

    @Sendable static func printDelta(_ delta: String) {
        Output.standardOutput(delta)
        Output.flushSoon()
    }

    @Sendable static func run(_ parsed: ArgumentParser) async throws -> Int32 {
        try parsed.expectPositional(1, "exactly one MESSAGE", command: "chat")
        let message = parsed.positional[0]
        let conversationId = parsed.value("conversation")
        let json = parsed.has("json")
        let made = try ClientSupport.makeClient(parsed)
        defer { made.finish() }
        let client = made.client
        let printing = !json
        // The client keeps its current conversation across runs (its store): only one this run
        // revealed is printed after a failure.
        let before = client.currentConversationId
        let clientMessageId = UUID().uuidString.lowercased()
        do {
            let response = try await client.send(
                message, conversationId: conversationId, clientMessageId: clientMessageId
            ) { callbacks in
                if printing { callbacks.onTextDelta = { printDelta($0) } }
            }
            if json {
                Output.standardOutput(response.jsonValue.jsonText + "\n")
            } else {
                Output.standardOutput("\n")
                Output.standardError(response.conversationId + "\n")
            }
            return 0
        } catch {
            let partial = (error as? APIError)?.replyStreamError?.partialMessage
            if !json, partial?.text.isEmpty == false { Output.standardOutput("\n") }
            if let queued = try? client.outbox().first(where: { $0.clientMessageId == clientMessageId }),
                queued.state == .pending
            {
                Output.flush()
                Output.standardError("queued: \(clientMessageId)\n")
                return queuedStatus
            }
            let revealed = client.currentConversationId.flatMap { $0 == before ? nil : $0 }
            if let id = partial?.conversationId ?? revealed {
                Output.standardError(id + "\n")
            }
            return ClientSupport.report(error)
        }
    }
}
