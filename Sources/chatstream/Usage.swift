/// The usage text every command falls back to.
enum Usage {
    static let text = """
        usage: chatstream <command> [options]

        commands:
          replay [--format auto|ui-message-stream|openai-chat|openai-responses|anthropic|ai-sdk-v4|ndjson|json-array]
                 [--chunk-size N] [--output message|events|text|none] [--json] FILE|-
                 decode a recorded stream and print what it holds
          serve [--host 127.0.0.1] [--port 8787] [--agent ID] [--data FILE]
                 run the local Chatbase-compatible server
          chat [--base-url URL] [--agent ID] [--conversation ID] [--json] MESSAGE
                 send a message and stream the reply (no --base-url: an embedded local server)
          conversations [--base-url URL] [--agent ID] [--limit N] [--all] [--json]
          messages CONVERSATION_ID [--base-url URL] [--agent ID] [--limit N] [--all] [--json]

        exit status: 0 success, 1 stream or API error, 2 usage error, 65 malformed input

        """
}
