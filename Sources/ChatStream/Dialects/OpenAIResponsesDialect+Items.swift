// The Responses dialect's output items: text and reasoning parts, function calls, tools the
// provider runs, and citations. Every handler here runs while the parser holds the unit.

import ChatStreamJSON

extension OpenAIResponsesDialect {
    /// Tools the provider executes itself, by output item type, with the tool name reported.
    private static func providerToolName(_ itemType: JSONElement) -> String? {
        if itemType.isString("web_search_call") { return "web_search" }
        if itemType.isString("file_search_call") { return "file_search" }
        if itemType.isString("code_interpreter_call") { return "code_interpreter" }
        if itemType.isString("image_generation_call") { return "image_generation" }
        if itemType.isString("mcp_call") { return "mcp" }
        return nil
    }

    /// Whether `type` is a built-in tool's progress event or a piece of its input
    /// (`response.web_search_call.searching`, `response.code_interpreter_call_code.delta`,
    /// `response.mcp_call_arguments.delta`, `response.mcp_list_tools.completed`, ...).
    static func isBuiltInToolProgress(_ type: JSONElement) -> Bool {
        type.withUTF8 { bytes in
            for prefix in builtInToolEventPrefixes where bytes.starts(with: prefix.utf8) { return true }
            return false
        } ?? false
    }

    private static let builtInToolEventPrefixes = [
        "response.web_search_call.", "response.file_search_call.", "response.code_interpreter_call",
        "response.image_generation_call.", "response.mcp_call", "response.mcp_list_tools.",
    ]

    // MARK: - Finding items

    /// The event's `output_index`; for relays that omit it, the item whose ID is `item_id`.
    private func outputIndex(_ context: Context) throws -> Int {
        try outputIndex(context, context.root["output_index"])
    }

    /// ``outputIndex(_:)`` with the `output_index` member already found.
    private func outputIndex(_ context: Context, _ element: JSONElement?) throws -> Int {
        if let index = element?.int { return index }
        // The lowest output index with that ID: dictionary order varies between instances, so
        // `first(where:)` made repeated IDs resolve differently from one decoder to the next.
        if let itemID = context.root["item_id"]?.string,
            let match = items.lazy.filter({ $0.value.id == itemID }).map(\.key).min()
        {
            return match
        }
        throw context.malformed("missing or non-integer field \"output_index\"", field: "output_index")
    }

    /// The item at `outputIndex`, made from the event when no `output_item.added` announced it.
    private mutating func item(
        _ outputIndex: Int, kind: Item.Kind, context: Context, textDelta: TextDeltaSink, emit: EventSink
    ) throws -> Int {
        try startMessage(id: nil, textDelta: textDelta, emit: emit)
        if items[outputIndex] == nil {
            let id = context.root["item_id"]?.string ?? "item-\(outputIndex)"
            var item = Item(kind: kind, id: id)
            if kind == .functionCall {
                item.call.id = id
                madeToolCalls = true
            }
            items[outputIndex] = item
        }
        return outputIndex
    }

    private func requiredDelta(_ context: Context) throws -> JSONElement {
        guard let delta = context.root["delta"], delta.kind == .string else {
            throw context.malformed("missing or non-string field \"delta\"", field: "delta")
        }
        return delta
    }

    // MARK: - Text, refusals, reasoning

    /// An `output_text.delta`: the part started when it is not open, then the delta (none when
    /// empty) lent to `textDelta` as the UTF-8 of its part ID and text.
    mutating func textDelta(
        _ context: Context, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        // One pass over the event for the delta's three fields.
        let (deltaElement, outputIndexElement, contentIndexElement) = context.root.members(
            "delta", "output_index", "content_index")
        guard let delta = deltaElement, delta.kind == .string else {
            throw context.malformed("missing or non-string field \"delta\"", field: "delta")
        }
        let id = try deltaPartID(
            outputIndex(context, outputIndexElement), contentIndexElement?.int ?? 0, kind: .message, context: context,
            textDelta: textDelta, emit: emit)
        try delta.withUTF8 { text in
            guard !text.isEmpty else { return }
            try textDelta(id, CheckedUTF8(unchecked: text))
        }
    }

    mutating func refusalDelta(_ context: Context, textDelta: TextDeltaSink, emit: EventSink) throws {
        let delta = try requiredDelta(context)
        let index = try item(outputIndex(context), kind: .message, context: context, textDelta: textDelta, emit: emit)
        let part = context.root["content_index"]?.int ?? 0
        guard let text = delta.withUTF8({ $0.isEmpty ? nil : String(tapeUTF8: $0) }) ?? nil else {
            return
        }
        try emit(.refusalDelta(id: items[index]!.partID(part), delta: text))
    }

    mutating func reasoningPartAdded(_ context: Context, textDelta: TextDeltaSink, emit: EventSink) throws {
        let index = try item(outputIndex(context), kind: .reasoning, context: context, textDelta: textDelta, emit: emit)
        try openPart(index, context.root["summary_index"]?.int ?? 0, textDelta: textDelta, emit: emit)
    }

    mutating func reasoningDelta(
        _ context: Context, indexKey: StaticString, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        let delta = try requiredDelta(context)
        let id = try deltaPartID(
            outputIndex(context), context.root[indexKey]?.int ?? 0, kind: .reasoning, context: context,
            textDelta: textDelta, emit: emit)
        guard let text = delta.withUTF8({ $0.isEmpty ? nil : String(tapeUTF8: $0) }) ?? nil else {
            return
        }
        try emit(.reasoningDelta(id: id, delta: text))
    }

    /// The ID of the part a delta goes to: part `part` of the item at `outputIndex`, the item (of
    /// `kind` when new) and the part started first when needed. The part of the last delta is
    /// used again with no lookup while `items` is unchanged (an open part means its item and the
    /// message have started, and a new response empties `items`).
    private mutating func deltaPartID(
        _ outputIndex: Int, _ part: Int, kind: Item.Kind, context: Context, textDelta: TextDeltaSink, emit: EventSink
    ) throws -> String {
        if let last = lastDeltaPart, last.outputIndex == outputIndex, last.part == part { return last.id }
        let id = try openPart(
            item(outputIndex, kind: kind, context: context, textDelta: textDelta, emit: emit), part,
            textDelta: textDelta, emit: emit)
        lastDeltaPart = (outputIndex, part, id)
        return id
    }

    /// Starts a text or reasoning part unless it is open (the item's kind says which), and
    /// returns the part's ID, so a delta looks its item up once.
    @discardableResult
    private mutating func openPart(_ index: Int, _ part: Int, textDelta: TextDeltaSink, emit: EventSink) throws
        -> String
    {
        if let open = items[index]!.openParts.first(where: { $0.index == part }) { return open.id }
        let id = items[index]!.partID(part)
        items[index]!.openParts.append(OpenPart(index: part, id: id))
        try emit(items[index]!.kind == .reasoning ? .reasoningStart(id: id) : .textStart(id: id))
        return id
    }

    mutating func closePart(_ context: Context, indexKey: StaticString, textDelta: TextDeltaSink, emit: EventSink)
        throws
    {
        let index = try outputIndex(context)
        let part = context.root[indexKey]?.int ?? 0
        guard let item = items[index], let position = item.openPosition(part) else { return }
        items[index]!.openParts.remove(at: position)
        let id = item.openParts[position].id
        try emit(item.kind == .reasoning ? .reasoningEnd(id: id) : .textEnd(id: id))
    }

    /// Ends every open part of an item.
    mutating func closeParts(_ index: Int, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard let item = items[index] else { return }
        items[index]!.openParts.removeAll()
        for part in item.openParts {
            let id = part.id
            try emit(item.kind == .reasoning ? .reasoningEnd(id: id) : .textEnd(id: id))
        }
    }

    mutating func annotationAdded(_ context: Context, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard let annotation = context.root["annotation"], let kind = annotation["type"] else {
            throw context.malformed("missing field \"annotation\"", field: "annotation")
        }
        if kind.isString("url_citation"), let url = annotation["url"]?.string {
            sourceCount += 1
            try emit(
                .source(StreamSource(id: "source-\(sourceCount)", url: url, title: annotation["title"]?.string)))
        } else if kind.isString("file_citation") || kind.isString("container_file_citation") {
            sourceCount += 1
            let filename = annotation["filename"]?.string
            try emit(
                .source(
                    StreamSource(
                        id: annotation["file_id"]?.string ?? "source-\(sourceCount)", title: filename,
                        filename: filename)))
        } else {
            unknownUnitCount += 1
        }
    }

    // MARK: - Items and tool calls

    mutating func itemAdded(_ context: Context, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard let element = context.root["item"], element.kind == .object, let itemType = element["type"] else {
            throw context.malformed("missing or non-object field \"item\"", field: "item")
        }
        let index = try outputIndex(context)
        try startMessage(id: nil, textDelta: textDelta, emit: emit)
        guard items[index] == nil else { return }
        let id = element["id"]?.string ?? "item-\(index)"
        if itemType.isString("message") {
            items[index] = Item(kind: .message, id: id)
        } else if itemType.isString("reasoning") {
            items[index] = Item(kind: .reasoning, id: id)
        } else if itemType.isString("function_call") || itemType.isString("custom_tool_call") {
            var item = Item(kind: .functionCall, id: id)
            item.call = OpenAIToolCall(
                id: element["call_id"]?.string ?? id, name: element["name"]?.string)
            madeToolCalls = true
            try item.call.start(fallbackID: id, textDelta: textDelta, emit: emit)
            if let arguments = element["arguments"], arguments.kind == .string {
                try arguments.withUTF8 { try item.call.append($0, textDelta: textDelta, emit: emit) }
            }
            items[index] = item
        } else if let name = Self.providerToolName(itemType) {
            let toolName = itemType.isString("mcp_call") ? element["name"]?.string ?? name : name
            items[index] = Item(kind: .providerTool(toolName), id: id)
            try emit(.toolCallStart(id: id, name: toolName, providerExecuted: true))
        } else {
            items[index] = Item(kind: .other, id: id)
            unknownUnitCount += 1
        }
    }

    mutating func itemDone(_ context: Context, textDelta: TextDeltaSink, emit: EventSink) throws -> FollowUp {
        guard let element = context.root["item"], element.kind == .object else {
            throw context.malformed("missing or non-object field \"item\"", field: "item")
        }
        let index = try outputIndex(context)
        if items[index] == nil { try itemAdded(context, textDelta: textDelta, emit: emit) }
        guard let item = items[index], !item.done else { return .none }
        items[index]!.done = true
        switch item.kind {
        case .message, .reasoning:
            try closeParts(index, textDelta: textDelta, emit: emit)
            return .none
        case .other:
            // An item of a kind this version does not read, kept whole as it finished.
            try closeParts(index, textDelta: textDelta, emit: emit)
            try emit(.unknown(type: element["type"]?.string ?? "", raw: element.jsonValue))
            return .none
        case .functionCall:
            try takeFinalArguments(
                element["arguments"] ?? element["input"], index: index, textDelta: textDelta, emit: emit)
            return .completeCall(outputIndex: index)
        case .providerTool(let name):
            try emit(.toolInputAvailable(id: item.id, name: name, input: Self.providerToolInput(element)))
            try emit(.toolResult(id: item.id, name: name, output: element.jsonValue, preliminary: false))
            return .none
        }
    }

    /// What a tool the provider ran was given, from its finished item: a web search's `action`;
    /// a code interpreter's `code` and `container_id`; an MCP call's `arguments` (JSON text,
    /// parsed; kept as the string when it is not JSON); a file search's `queries`; `{}` for
    /// tools whose item carries no input (image generation).
    static func providerToolInput(_ element: JSONElement) -> JSONTree {
        var input = JSONObject()
        guard let type = element["type"] else { return .object(input) }
        if type.isString("web_search_call") {
            if let action = element["action"], action.kind == .object { return action.jsonValue }
        } else if type.isString("code_interpreter_call") {
            if let code = element["code"], code.kind == .string { input["code"] = code.jsonValue }
            if let container = element["container_id"], container.kind == .string {
                input["container_id"] = container.jsonValue
            }
        } else if type.isString("mcp_call") {
            if let arguments = element["arguments"] {
                if let text = arguments.string {
                    let blank = text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
                    if blank { return .object(input) }
                    return (try? JSONTree(parsing: text)) ?? .string(text)
                }
                if arguments.kind == .object { return arguments.jsonValue }
            }
        } else if type.isString("file_search_call") {
            if let queries = element["queries"], queries.kind == .array { input["queries"] = queries.jsonValue }
        }
        return .object(input)
    }

    mutating func argumentsDelta(_ context: Context, textDelta: TextDeltaSink, emit: EventSink) throws {
        let delta = try requiredDelta(context)
        let index = try item(
            outputIndex(context), kind: .functionCall, context: context, textDelta: textDelta, emit: emit)
        try delta.withUTF8 { try items[index]!.call.append($0, textDelta: textDelta, emit: emit) }
    }

    mutating func argumentsDone(_ context: Context, textDelta: TextDeltaSink, emit: EventSink) throws -> FollowUp {
        let index = try item(
            outputIndex(context), kind: .functionCall, context: context, textDelta: textDelta, emit: emit)
        guard items[index]!.kind == .functionCall else { return .none }
        try takeFinalArguments(context.root["arguments"], index: index, textDelta: textDelta, emit: emit)
        return .completeCall(outputIndex: index)
    }

    /// The complete arguments a `.done` event carries are the ones parsed. When no delta came,
    /// they are also emitted as the one delta.
    private mutating func takeFinalArguments(
        _ arguments: JSONElement?, index: Int, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        guard let arguments, arguments.kind == .string, !items[index]!.call.completed else { return }
        try arguments.withUTF8 { bytes in
            if items[index]!.call.arguments.isEmpty {
                try items[index]!.call.append(bytes, textDelta: textDelta, emit: emit)
            } else if !bytes.elementsEqual(items[index]!.call.arguments) {
                items[index]!.call.arguments = Array(bytes)
            }
        }
    }
}
