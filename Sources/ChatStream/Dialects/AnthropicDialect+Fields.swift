// Field readers for AnthropicDialect: required fields with errors that name the event and field.
// Error construction stays out of line; the fast path only compares bytes.

import ChatStreamJSON

extension AnthropicDialect {
    static func malformed(_ message: String, _ offset: Int, _ eventType: String?, _ field: String?) -> StreamError {
        .malformedUnit(message, byteOffset: offset, eventType: eventType, field: field)
    }

    /// The required integer `index` of a content block event.
    static func index(_ root: JSONElement, _ eventType: String, _ offset: Int) throws -> Int {
        try index(root["index"], eventType, offset)
    }

    /// The `index` member already found, checked as ``index(_:_:_:)`` checks it.
    static func index(_ element: JSONElement?, _ eventType: String, _ offset: Int) throws -> Int {
        guard let index = element?.int, index >= 0 else {
            throw malformed("missing or non-integer field \"index\"", offset, eventType, "index")
        }
        return index
    }

    /// The required string member `key` of a delta.
    static func string(_ delta: JSONElement, _ key: StaticString, _ offset: Int) throws -> String {
        try stringElement(delta, key, offset).string!
    }

    /// The string member `key` of a delta, as an element (for its bytes).
    static func stringElement(_ delta: JSONElement, _ key: StaticString, _ offset: Int) throws -> JSONElement {
        guard let text = delta[key], text.kind == .string else {
            throw malformed(
                "missing or non-string field \"delta.\(key)\"", offset, "content_block_delta", "delta.\(key)")
        }
        return text
    }

    /// For a tool-use block (`tool_use`, `server_tool_use`, `mcp_tool_use`): its ID, name and
    /// whether the provider runs it; nil for other blocks.
    static func toolHeader(_ block: JSONElement, _ type: JSONElement, _ offset: Int) throws -> (String, String, Bool)? {
        let provider: Bool
        if type.isString("tool_use") {
            provider = false
        } else if type.isString("server_tool_use") || type.isString("mcp_tool_use") {
            provider = true
        } else {
            return nil
        }
        guard let id = block["id"]?.string, let name = block["name"]?.string else {
            throw malformed(
                "a \(type.string ?? "tool") block without a string \"id\" and \"name\"", offset, "content_block_start",
                "content_block.id")
        }
        return (id, name, provider)
    }

    /// `web_search_tool_result` -> `web_search`: the tool's name when its call was not seen.
    static func toolName(ofResultType type: String) -> String {
        type.hasSuffix("_tool_result") ? String(type.dropLast("_tool_result".count)) : type
    }
}
