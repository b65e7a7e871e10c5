// `chatstream events`: follows the caller's live conversation events (GET /agents/{id}/events)
// until SIGINT or SIGTERM, one line per event, reconnecting as the client does.
//
// The client's sequence hands each event over once across reconnections, so no line is printed
// twice; a `reset` (events may have been missed) is printed as a line of type `reset`.

import ChatStream
import ChatStreamClient
import Foundation

enum EventsCommand {
    static let command = Command(
        "events",
        flags: [.value("base-url", "URL"), .value("agent", "ID"), .json, .value("since", "EVENT_ID")],
        summary:
            "print the live conversation events (one line each; --json: {\"id\",\"type\",...}) until SIGINT/SIGTERM",
        run: run)

    @Sendable static func run(_ parsed: ArgumentParser) async throws -> Int32 {
        guard parsed.positional.isEmpty else {
            throw ArgumentParser.UsageError(message: "unexpected argument \"\(parsed.positional[0])\"")
        }
        if let since = parsed.value("since"), since.isEmpty {
            throw ArgumentParser.UsageError(message: "--since needs an event ID")
        }
        let json = parsed.has("json")
        let termination = TerminationSignal()
        let (client, finish) = try ClientSupport.makeClient(parsed)
        defer { finish() }
        let sequence = client.events(since: parsed.value("since"))
        let agent = client.agentId
        let consumer = Task {
            do {
                for try await event in sequence {
                    if event.kind == .notSupportedByServer {
                        // An error that will not heal: report it and end the process at once.
                        exit(ClientSupport.report(ClientError(.notSupportedByServer, "GET /agents/\(agent)/events")))
                    }
                    Output.standardOutput(line(event, json: json) + "\n")
                    Output.flush()
                }
            } catch is CancellationError {
                return
            } catch {
                exit(ClientSupport.report(error))
            }
        }
        await termination.wait()
        consumer.cancel()
        await consumer.value
        Output.flush()
        return 0
    }

    /// One event as a line: `{"id","type",...data}` with `--json`, else a short summary.
    static func line(_ event: LiveEvent, json: Bool) -> String {
        let decoded = event.event ?? ConversationEvent(id: event.id, kind: .reset)
        return json ? decoded.jsonValue.jsonText : decoded.summary
    }
}
