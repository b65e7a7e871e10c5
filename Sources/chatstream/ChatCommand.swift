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
    static let usage = """
        usage: chatstream chat [--base-url URL] [--agent ID] [--conversation ID] [--json] MESSAGE

        """

    @Sendable static func printDelta(_ delta: String) {
        Output.standardOutput(delta)
        Output.flush()
    }

    static func run(_ arguments: [String]) -> Int32 {
        let parsed: ArgumentParser
        do {
            parsed = try ArgumentParser(arguments, valued: ["base-url", "agent", "conversation"], switches: ["json"])
        } catch let error as ArgumentParser.UsageError {
            return ClientSupport.usage(error.message, usage)
        } catch {
            return ClientSupport.usage("\(error)", usage)
        }
        guard parsed.positional.count == 1, !parsed.positional[0].isEmpty else {
            return ClientSupport.usage("chat needs exactly one MESSAGE", usage)
        }
        let message = parsed.positional[0]
        let conversationId = parsed.value("conversation")
        let json = parsed.has("json")
        let made: (client: ChatClient, finish: @Sendable () -> Void)
        do {
            made = try ClientSupport.makeClient(parsed)
        } catch let error as ArgumentParser.UsageError {
            return ClientSupport.usage(error.message, usage)
        } catch {
            return ClientSupport.report(error)
        }
        defer { made.finish() }
        let client = made.client
        let onTextDelta: (@Sendable (String) -> Void)? = json ? nil : printDelta
        return ClientSupport.wait { () async -> Int32 in
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
}
