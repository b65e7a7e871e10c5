/// One part of a message, in the order the reply produced it.
///
/// Encodes in the history wire shape: `{"type":"text","text":...}`,
/// `{"type":"tool-call","toolCallId":...,"toolName":...,"input":...}`,
/// `{"type":"tool-result","toolCallId":...,"toolName":...,"output":...}`, and so on. A part
/// of a type this version does not know is kept as ``unknown(type:raw:)``, never dropped.
public enum AssembledPart: Sendable, Hashable {
    case text(String)
    case reasoning(String)
    case refusal(String)
    case toolCall(ToolCallPart)
    case toolResult(ToolResultPart)
    case source(StreamSource)
    case file(url: String, mediaType: String)
    case data(name: String, id: String?, data: JSONTree)
    /// A part whose type this version does not know, kept whole: a part of the history wire
    /// shape, or a provider's part, block or item no dialect reads (``StreamEvent/unknown(type:raw:)``).
    case unknown(type: String, raw: JSONTree)

    /// The text of a text part; nil for other parts.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}

/// A tool call: which tool, with what input.
public struct ToolCallPart: Sendable, Hashable {
    /// Where the input stands while it streams.
    public enum InputState: String, Sendable, Hashable, Codable {
        /// Input is still arriving; ``ToolCallPart/input`` is the partial value so far.
        case streaming
        /// The complete input has arrived.
        case available
        /// The input could not be used; see ``ToolCallPart/errorText``.
        case error
    }

    public var toolCallId: String
    public var toolName: String
    /// The input: the partial value while streaming, then the complete one.
    public var input: JSONTree
    public var state: InputState
    /// Whether the provider ran the tool itself (server tools).
    public var providerExecuted: Bool
    /// Why the input could not be used, when ``state`` is ``InputState/error``.
    public var errorText: String?

    public init(
        toolCallId: String, toolName: String, input: JSONTree, state: InputState = .available,
        providerExecuted: Bool = false, errorText: String? = nil
    ) {
        self.toolCallId = toolCallId
        self.toolName = toolName
        self.input = input
        self.state = state
        self.providerExecuted = providerExecuted
        self.errorText = errorText
    }
}

/// A tool's result.
public struct ToolResultPart: Sendable, Hashable {
    public var toolCallId: String
    public var toolName: String
    public var output: JSONTree
    /// Set when the tool failed: the output is then `{"error": errorText}`.
    public var errorText: String?

    public init(toolCallId: String, toolName: String, output: JSONTree, errorText: String? = nil) {
        self.toolCallId = toolCallId
        self.toolName = toolName
        self.output = output
        self.errorText = errorText
    }
}

extension AssembledPart {
    /// The part in its wire shape. A tool call adds `providerExecuted: true` when the provider ran
    /// the tool, and `state` (`streaming`, `error`) and `errorText` when its input is not complete.
    public var jsonValue: JSONTree {
        switch self {
        case .text(let text): return ["type": "text", "text": .string(text)]
        case .reasoning(let text): return ["type": "reasoning", "text": .string(text)]
        case .refusal(let text): return ["type": "refusal", "text": .string(text)]
        case .toolCall(let call):
            var object = JSONObject()
            object["type"] = "tool-call"
            object["toolCallId"] = .string(call.toolCallId)
            object["toolName"] = .string(call.toolName)
            object["input"] = call.input
            // Only what differs from a complete call the client runs, so such a call reads as before.
            if call.providerExecuted { object["providerExecuted"] = true }
            if call.state != .available { object["state"] = .string(call.state.rawValue) }
            if let errorText = call.errorText { object["errorText"] = .string(errorText) }
            return .object(object)
        case .toolResult(let result):
            return [
                "type": "tool-result", "toolCallId": .string(result.toolCallId), "toolName": .string(result.toolName),
                "output": result.output,
            ]
        case .source(let source):
            var object = JSONObject()
            object["type"] = source.url != nil ? "source-url" : "source-document"
            object["sourceId"] = .string(source.id)
            if let url = source.url { object["url"] = .string(url) }
            if let title = source.title { object["title"] = .string(title) }
            if let mediaType = source.mediaType { object["mediaType"] = .string(mediaType) }
            if let filename = source.filename { object["filename"] = .string(filename) }
            return .object(object)
        case .file(let url, let mediaType):
            return ["type": "file", "url": .string(url), "mediaType": .string(mediaType)]
        case .data(let name, let id, let data):
            var object = JSONObject()
            object["type"] = .string("data-" + name)
            if let id { object["id"] = .string(id) }
            object["data"] = data
            return .object(object)
        case .unknown(let type, let raw):
            // Kept as it came; a raw object without a `type` (a Gemini part) gets the kind as one,
            // so the part reads back as the same unknown part. A part read from the wire without a
            // string `type` has the empty kind and stays exactly as it came.
            guard !type.isEmpty, case .object(let object) = raw, object["type"] == nil else { return raw }
            var typed = JSONObject()
            typed["type"] = .string(type)
            for (key, value) in object { typed[key] = value }
            return .object(typed)
        }
    }

    /// Reads a part from its wire shape. Unknown or incomplete parts become ``unknown(type:raw:)``.
    public init(json: JSONTree) {
        let type = json["type"]?.stringValue ?? ""
        func string(_ key: String) -> String? { json[key]?.stringValue }
        switch type {
        case "text" where string("text") != nil: self = .text(string("text")!)
        case "reasoning" where string("text") != nil: self = .reasoning(string("text")!)
        case "refusal" where string("text") != nil: self = .refusal(string("text")!)
        case "tool-call" where string("toolCallId") != nil:
            self = .toolCall(
                ToolCallPart(
                    toolCallId: string("toolCallId")!, toolName: string("toolName") ?? "",
                    input: json["input"] ?? .null,
                    state: string("state").flatMap(ToolCallPart.InputState.init(rawValue:)) ?? .available,
                    providerExecuted: json["providerExecuted"]?.boolValue ?? false, errorText: string("errorText")))
        case "tool-result" where string("toolCallId") != nil:
            self = .toolResult(
                ToolResultPart(
                    toolCallId: string("toolCallId")!, toolName: string("toolName") ?? "",
                    output: json["output"] ?? .null))
        case "source-url" where string("url") != nil, "source-document" where string("sourceId") != nil:
            self = .source(
                StreamSource(
                    id: string("sourceId") ?? "", url: string("url"), title: string("title"),
                    mediaType: string("mediaType"), filename: string("filename")))
        case "file" where string("url") != nil:
            self = .file(url: string("url")!, mediaType: string("mediaType") ?? "application/octet-stream")
        case _ where type.hasPrefix("data-"):
            self = .data(name: String(type.dropFirst(5)), id: string("id"), data: json["data"] ?? .null)
        default:
            self = .unknown(type: type, raw: json)
        }
    }
}

extension AssembledPart: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(json: try JSONTree(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
