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

    /// A decoder for this format.
    public func makeDecoder(configuration: StreamDecoderConfiguration = StreamDecoderConfiguration())
        -> any StreamEventDecoding
    {
        switch self {
        case .uiMessageStream: return StreamDecoder<UIMessageStreamDialect>(configuration: configuration)
        case .openAIChat: return StreamDecoder<OpenAIChatDialect>(configuration: configuration)
        case .openAIResponses: return StreamDecoder<OpenAIResponsesDialect>(configuration: configuration)
        case .anthropic: return StreamDecoder<AnthropicDialect>(configuration: configuration)
        case .aiSDKv4: return StreamDecoder<DataStreamV4Dialect>(configuration: configuration)
        case .ndjson: return StreamDecoder<OllamaDialect>(configuration: configuration)
        case .jsonArray: return StreamDecoder<GeminiDialect>(configuration: configuration)
        }
    }
}
