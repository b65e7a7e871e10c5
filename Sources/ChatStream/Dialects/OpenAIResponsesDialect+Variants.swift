// The shapes of OpenAI Responses streams this dialect accepts from OpenAI and the vendors that
// copy it, and what each becomes (VendorVariants.md prints the table).

extension OpenAIResponsesDialect: RegisteredDialect {
    /// ``StreamFormat/openAIResponses``'s raw value, which error messages name.
    public static var formatName: String { StreamFormat.openAIResponses.rawValue }

    /// The variants this dialect reads: which field, which shapes, what each becomes.
    public static let variants: [DialectVariant] = [
        DialectVariant(
            field: "item_id", shapes: "changing on every event (GitHub Copilot)",
            becomes: "parts keyed by `output_index` / `content_index`"),
        DialectVariant(
            field: "event:", shapes: "present, or dropped by a relay", becomes: "ignored: the payload's `type` is read"),
        DialectVariant(
            field: "response.reasoning_text.delta", shapes: "raw chain of thought (OpenRouter, DeepSeek)",
            becomes: "reasoning"),
        DialectVariant(
            field: "`[DONE]` after the end", shapes: "present or absent", becomes: "ignored"),
        DialectVariant(
            field: "response.completed", shapes: "after function calls", becomes: "`finish(tool-calls)`"),
        DialectVariant(
            field: "output items", shapes: "`code_interpreter_call`, `mcp_call`, `file_search_call`, `web_search_call`",
            becomes: "provider-executed calls whose input is the item's `code` and `container_id`, its parsed "
                + "`arguments` (named by `name`; `server_label` stays in the result), its `queries`, its `action`; "
                + "the item is the result"),
        DialectVariant(
            field: "built-in tool events",
            shapes: "`response.code_interpreter_call_code.delta`, `response.mcp_call_arguments.delta`, "
                + "`response.*_call.in_progress` and the like",
            becomes: "nothing: the finished item carries the whole input"),
        DialectVariant(
            field: "output items", shapes: "any other type (`mcp_list_tools`, `computer_call`, ...)",
            becomes: "an `unknown` part with the finished item's JSON"),
        DialectVariant.errorBody("OpenAI: `{\"error\":{message, type, param, code}}`"),
    ]
}
