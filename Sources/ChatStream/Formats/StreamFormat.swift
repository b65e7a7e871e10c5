/// The wire formats ChatStream decodes. Raw values are the names `chatstream replay --format` takes.
public enum StreamFormat: String, Sendable, Hashable, CaseIterable {
    /// The AI SDK UI message stream (Chatbase's streamed replies), SSE.
    case uiMessageStream = "ui-message-stream"
    /// OpenAI Chat Completions streaming, SSE.
    case openAIChat = "openai-chat"
    /// OpenAI Responses streaming, SSE.
    case openAIResponses = "openai-responses"
    /// Anthropic Messages streaming, SSE.
    case anthropic
    /// The AI SDK v4 data stream (`CODE:JSON` lines).
    case aiSDKv4 = "ai-sdk-v4"
    /// Ollama's `/api/chat` NDJSON.
    case ndjson
    /// Gemini's streamed top-level JSON array.
    case jsonArray = "json-array"

    /// A decoder for this format (an ``AnyStreamDecoder`` given it).
    public func makeDecoder(configuration: StreamDecoderConfiguration = StreamDecoderConfiguration())
        -> any StreamEventDecoding
    {
        AnyStreamDecoder(format: self, configuration: configuration)
    }
}

extension StreamFormat {
    /// The dialect that decodes the format: the one place where formats meet their dialects.
    package var dialect: any RegisteredDialect.Type {
        switch self {
        case .uiMessageStream: UIMessageStreamDialect.self
        case .openAIChat: OpenAIChatDialect.self
        case .openAIResponses: OpenAIResponsesDialect.self
        case .anthropic: AnthropicDialect.self
        case .aiSDKv4: DataStreamV4Dialect.self
        case .ndjson: OllamaDialect.self
        case .jsonArray: GeminiDialect.self
        }
    }
}
