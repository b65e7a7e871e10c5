/// The usage text every command falls back to: every command and flag.
enum Usage {
    static let text = """
        usage: chatstream <command> [options]
        commands:
          replay [--format auto|ui-message-stream|openai-chat|openai-responses|anthropic|ai-sdk-v4|ndjson|json-array]
                 [--chunk-size N] [--output message|events|text|none] [--json] [--lenient] FILE|-
                 decode a recorded stream and print what it holds
          serve [--host 127.0.0.1] [--port 8787] [--agent ID] [--data FILE] [--delay-ms N] [--chunk-size N]
                [--drop-after N] [--fail-status CODE] [--no-extensions]
                 run the local Chatbase-compatible server until SIGINT/SIGTERM (fault flags for testing clients)
          chat [--base-url URL] [--agent ID] [--conversation ID] [--json] MESSAGE
                 send a message and stream the reply; the conversation ID goes to stderr
          conversations [--base-url URL] [--agent ID] [--limit N] [--all] [--json]
                        [--status ongoing|ended|taken_over]... [--tag T]... [--unread] [--search TEXT]
                        [--order asc|desc]
                 list conversations (filters combine with AND)
          messages CONVERSATION_ID [--base-url URL] [--agent ID] [--limit N] [--all] [--json]
                 list a conversation's messages (--all: oldest to newest)
          conversation ID [--base-url URL] [--agent ID] [--json]
                 show one conversation
          close ID [--base-url URL] [--agent ID] [--json]
                 end a conversation (later chats answer 403 CHAT_CONVERSATION_NOT_ONGOING)
          tag ID TAG... [--base-url URL] [--agent ID] [--json]
                 replace your tags on a conversation (no TAG clears them)
          read ID MESSAGE_ID [--base-url URL] [--agent ID] [--json]
                 mark a conversation read up to a message
          help   print this text
        without --base-url the client commands start the local server in-process, keeping its data
        and the device ID in $XDG_DATA_HOME/chatstream on Linux (default ~/.local/share/chatstream)
        exit status: 0 success, 1 stream or API error (error: <STATUS> <CODE>: <message>), 2 usage error,
                     65 malformed input
        """
}
