// StreamEvent as JSON: the shape `chatstream replay --output events --json` prints, one
// object per event, with a `type` named as in the UI message stream where one exists.

extension StreamEvent {
    /// The event as a JSON object with a `type` member.
    public var jsonValue: JSONTree {
        func object(_ type: String, _ members: [(String, JSONTree)]) -> JSONTree {
            var object = JSONObject()
            object["type"] = .string(type)
            for (key, value) in members { object[key] = value }
            return .object(object)
        }
        func optional(_ string: String?) -> JSONTree { string.map(JSONTree.string) ?? .null }
        switch self {
        case .messageStart(let id): return object("message-start", [("id", optional(id))])
        case .conversationAssigned(let id): return object("conversation-assigned", [("conversationId", .string(id))])
        case .textStart(let id): return object("text-start", [("id", .string(id))])
        case .textDelta(let id, let delta):
            return object("text-delta", [("id", .string(id)), ("delta", .string(delta))])
        case .textEnd(let id): return object("text-end", [("id", .string(id))])
        case .reasoningStart(let id): return object("reasoning-start", [("id", .string(id))])
        case .reasoningDelta(let id, let delta):
            return object("reasoning-delta", [("id", .string(id)), ("delta", .string(delta))])
        case .reasoningEnd(let id): return object("reasoning-end", [("id", .string(id))])
        case .refusalDelta(let id, let delta):
            return object("refusal-delta", [("id", .string(id)), ("delta", .string(delta))])
        case .toolCallStart(let id, let name, let providerExecuted):
            return object(
                "tool-call-start",
                [
                    ("toolCallId", .string(id)), ("toolName", .string(name)),
                    ("providerExecuted", .bool(providerExecuted)),
                ])
        case .toolInputDelta(let id, let delta):
            return object("tool-input-delta", [("toolCallId", .string(id)), ("inputTextDelta", .string(delta))])
        case .toolInputAvailable(let id, let name, let input):
            return object(
                "tool-input-available", [("toolCallId", .string(id)), ("toolName", .string(name)), ("input", input)])
        case .toolInputError(let id, let name, let errorText):
            return object(
                "tool-input-error",
                [("toolCallId", .string(id)), ("toolName", optional(name)), ("errorText", .string(errorText))])
        case .toolResult(let id, let name, let output, let preliminary):
            return object(
                "tool-result",
                [
                    ("toolCallId", .string(id)), ("toolName", optional(name)), ("output", output),
                    ("preliminary", .bool(preliminary)),
                ])
        case .toolOutputError(let id, let errorText):
            return object("tool-output-error", [("toolCallId", .string(id)), ("errorText", .string(errorText))])
        case .source(let source):
            return object(
                "source",
                [
                    ("sourceId", .string(source.id)), ("url", optional(source.url)), ("title", optional(source.title)),
                    ("mediaType", optional(source.mediaType)), ("filename", optional(source.filename)),
                ])
        case .file(let url, let mediaType):
            return object("file", [("url", .string(url)), ("mediaType", .string(mediaType))])
        case .data(let name, let id, let data, let transient):
            return object(
                "data",
                [("name", .string(name)), ("id", optional(id)), ("data", data), ("transient", .bool(transient))])
        case .unknown(let type, let raw): return object("unknown", [("unknownType", .string(type)), ("raw", raw)])
        case .stepStart: return object("step-start", [])
        case .stepFinish: return object("step-finish", [])
        case .metadata(let metadata):
            return object(
                "metadata",
                [
                    ("messageId", optional(metadata.messageId)), ("userMessageId", optional(metadata.userMessageId)),
                    ("conversationId", optional(metadata.conversationId)), ("userId", optional(metadata.userId)),
                    ("usage", metadata.usage ?? .null),
                ])
        case .finish(let reason, let rawReason):
            return object(
                "finish", [("finishReason", optional(reason?.rawValue)), ("rawFinishReason", optional(rawReason))])
        case .error(let info):
            return object("error", [("code", optional(info.code)), ("message", .string(info.message))])
        case .choice(let index): return object("choice", [("index", .number(JSONNumber(index)))])
        case .done: return object("done", [])
        }
    }
}
