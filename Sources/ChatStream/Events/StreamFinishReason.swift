/// Why a reply finished, normalised across wire formats.
///
/// | wire value | normalised |
/// |---|---|
/// | `stop`, `end_turn`, `stop_sequence`, `STOP`, ollama `done_reason: stop` | ``stop`` |
/// | `length`, `max_tokens`, `max_output_tokens`, `MAX_TOKENS` | ``length`` |
/// | `tool_calls`, `tool-calls`, `function_call`, `tool_use` | ``toolCalls`` |
/// | `content_filter`, `content-filter`, `refusal`, `SAFETY`, `RECITATION` | ``contentFilter`` |
/// | `error` | ``error`` |
/// | anything else | ``other`` |
public enum StreamFinishReason: String, Sendable, Hashable, Codable, CaseIterable {
    case stop
    case length
    case toolCalls = "tool-calls"
    case contentFilter = "content-filter"
    case error
    case other

    /// Normalises a finish or stop reason from any supported wire format.
    public init(normalizing raw: String) {
        switch raw {
        case "stop", "end_turn", "stop_sequence", "STOP", "pause_turn", "completed": self = .stop
        case "length", "max_tokens", "max_output_tokens", "MAX_TOKENS", "model_context_window_exceeded": self = .length
        case "tool_calls", "tool-calls", "function_call", "tool_use": self = .toolCalls
        case "content_filter", "content-filter", "refusal", "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT",
            "SPII":
            self = .contentFilter
        case "error", "failed": self = .error
        default: self = .other
        }
    }
}
