// The shapes Gemini streams take besides the JSON-name enums of the current API, and what each
// becomes. `GeminiDialect.variants` is the table (VendorVariants.md prints it); the enum names below
// are Google's public API reference (google.ai.generativelanguage.v1beta `Candidate.FinishReason`
// and `GenerateContentResponse.PromptFeedback.BlockReason`), for streams requested with integer
// enum encoding.

import ChatStreamJSON

extension GeminiDialect: RegisteredDialect {
    /// ``StreamFormat/jsonArray``'s raw value, which error messages name.
    public static var formatName: String { StreamFormat.jsonArray.rawValue }

    /// The vendor variants this dialect reads: which field, which shapes, what each becomes.
    public static let variants: [DialectVariant] = [
        DialectVariant(
            field: "candidates[0].finishReason", shapes: "enum name string (`\"STOP\"`)",
            becomes: "`finish` with the name as the raw reason"),
        DialectVariant(
            field: "candidates[0].finishReason", shapes: "integer (`1`, integer enum encoding)",
            becomes: "the name from Google's reference (0-10: `FINISH_REASON_UNSPECIFIED`, `STOP`, `MAX_TOKENS`, "
                + "`SAFETY`, `RECITATION`, `OTHER`, `LANGUAGE`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, "
                + "`MALFORMED_FUNCTION_CALL`) as the raw reason"),
        DialectVariant(
            field: "candidates[0].finishReason", shapes: "unknown name, unknown integer, any other value",
            becomes: "`finish(other)` with the raw value kept (never an error, never a truncation)"),
        DialectVariant(
            field: "candidates[0].finishReason", shapes: "repeated on every element (older models)",
            becomes: "one `finish` at the end of the array (the last reason given), after all content; text "
                + "around it stays one part"),
        DialectVariant(
            field: "candidates[0].finishReason", shapes: "`STOP` in a message that carried `functionCall` parts",
            becomes: "`finish(tool-calls)`, raw reason `STOP`"),
        DialectVariant(
            field: "promptFeedback.blockReason",
            shapes: "enum name string or integer (0-4: "
                + "`BLOCK_REASON_UNSPECIFIED`, `SAFETY`, `OTHER`, `BLOCKLIST`, `PROHIBITED_CONTENT`)",
            becomes: "`finish(content-filter)` when no candidate came, with the name as the raw reason"),
        DialectVariant(
            field: "candidates[0].content.parts[].text", shapes: "\"\" or null",
            becomes: "nothing (no empty part is started)"),
        DialectVariant(
            field: "candidates[0].content.parts[].functionCall",
            shapes: "`{name, willContinue: true}`, then `{partialArgs: [{jsonPath, stringValue|numberValue|boolValue|"
                + "nullValue, willContinue?}], willContinue?}` without `name` (`streamFunctionCallArguments`, Gemini 3, "
                + "Vertex)",
            becomes:
                "one call: `toolCallStart`, the input's JSON text as `toolInputDelta`s in the order the paths come, "
                + "`toolInputAvailable` at the first functionCall without `willContinue` (or at text, a new call, the "
                + "finish); a nameless piece with no call open is malformed"),
        DialectVariant(
            field: "candidates[0].content.parts[]", shapes: "`executableCode`, `codeExecutionResult`, any other kind",
            becomes: "an `unknown` part named by its member, the part's JSON kept whole"),
        DialectVariant.errorBody("Gemini: `{\"error\":{code, message, status}}`, pretty-printed, HTTP 4xx/5xx"),
    ]

    /// `Candidate.FinishReason` by number.
    static let finishReasonNames = [
        "FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER", "LANGUAGE", "BLOCKLIST",
        "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL",
    ]

    /// `PromptFeedback.BlockReason` by number.
    static let blockReasonNames = ["BLOCK_REASON_UNSPECIFIED", "SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT"]

    /// An enum field's raw text: a string as it is (nil when empty), an integer as its name in
    /// `names` (or its literal when it has none), any other value as its JSON text; nil for null.
    static func enumName(_ element: JSONElement?, names: [String]) -> String? {
        guard let element, !element.isNull else { return nil }
        if let text = element.string { return text.isEmpty ? nil : text }
        if let number = element.number {
            if let value = element.int, names.indices.contains(value) { return names[value] }
            return number.text
        }
        return element.jsonValue.jsonText
    }
}
