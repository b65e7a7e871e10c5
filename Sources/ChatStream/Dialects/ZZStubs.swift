// TEMPORARY: placeholders until the real dialects merge (removed at that merge).
public typealias AnthropicDialect = UIMessageStreamDialect
public typealias DataStreamV4Dialect = UIMessageStreamDialect
public typealias OllamaDialect = UIMessageStreamDialect
public typealias GeminiDialect = UIMessageStreamDialect
