// The message entries of Salesforce's event stream (`CONVERSATION_MESSAGE`,
// `CHOICES_RESPONSE_MESSAGE`): every documented message type yields its text.
//
// - StaticContentMessage: `staticContent.text` (Text, and the text beside Attachments and
//   RichLink); an Agentforce rich reply's `staticContent.message` (ExperienceType), else its
//   values as compact JSON; a rich link's or web view's title and URL; an error's title; the
//   attachments as file parts (name, URL, media type), and their names when there is no text.
// - ChoicesMessage: `choices.text` (or an Agentforce `choices.message`), the options from
//   `optionItems` (buttons, quick replies), `options` (ExperienceType) or `items` (carousel),
//   and the option titles as the text when there is none.
// - ChoicesResponseMessage: the picked options' titles (`choicesResponse.selectedOptions`); a
//   selection that names only its identifier takes the title the stream offered earlier.
// - Other types (forms): the first text, message or title of their content object.
// The whole `entryPayload` stays in the message's content for what the model does not name.

import ChatStream
import ChatStreamFraming
import ChatStreamJSON

extension EntryReading {
    /// A message entry as a ``LiveMessage``.
    func message(_ payload: JSONElement, memory: inout LiveStreamMemory) throws -> LiveMessage {
        guard let abstract = payload["abstractMessage"], abstract.kind == .object else {
            throw missing("abstractMessage", "the message has no abstractMessage object")
        }
        guard let id = entry["identifier"]?.string ?? payload["id"]?.string ?? abstract["id"]?.string else {
            throw view.missing("conversationEntry.identifier", "the message has no identifier")
        }
        let messageType = abstract["messageType"]?.string
        var content = LiveMessageContent(
            messageType: messageType, inReplyToMessageId: abstract["inReplyToMessageId"]?.string,
            payload: payload.jsonValue)
        let text: String
        switch messageType {
        case "StaticContentMessage":
            text = try staticContent(abstract, into: &content)
        case "ChoicesMessage":
            text = try choices(abstract, into: &content)
            memory.remember(content.options)
        case "ChoicesResponseMessage":
            text = try selections(abstract, into: &content, memory: memory)
        default:
            text = Self.otherContentText(abstract, into: &content)
        }
        content.completesStream = memory.takeStreamed(id)
        let milliseconds = entry["transcriptedTimestamp"]?.double ?? entry["clientTimestamp"]?.double ?? 0
        let sender = SalesforceMessagingDialect.role(entry["sender"]?["role"]?.string)
        let name = entry["senderDisplayName"]?.string
        return LiveMessage(
            id: id, conversationId: conversationId, sender: sender, senderName: name, text: text,
            createdAt: milliseconds / 1000,
            json: Self.historyJSON(id: id, sender: sender, name: name, text: text, milliseconds, content),
            content: content)
    }

    private func staticContent(_ abstract: JSONElement, into content: inout LiveMessageContent) throws -> String {
        guard let body = abstract["staticContent"], body.kind == .object else {
            throw missing("abstractMessage.staticContent", "the static content message has no staticContent object")
        }
        content.formatType = body["formatType"]?.string
        body["attachments"]?.forEachElement { file in
            guard let url = file["url"]?.string else { return }
            content.attachments.append(
                MessageAttachment(
                    name: file["name"]?.string ?? "", url: url, mimeType: file["mimeType"]?.string,
                    id: file["id"]?.string))
        }
        if content.formatType == "Text", body["text"]?.string == nil {
            throw missing("abstractMessage.staticContent.text", "the Text message has no text string")
        }
        var lines: [String] = []
        func add(_ line: String?) {
            if let line, !line.isEmpty, !lines.contains(line) { lines.append(line) }
        }
        add(body["text"]?.string)
        add(body["message"]?.string)
        add(body["title"]?.string ?? body["title"]?["title"]?.string)
        add(body["linkItem"]?["titleItem"]?["title"]?.string)
        add(body["linkItem"]?["url"]?.string)
        add(body["url"]?.string)
        if lines.isEmpty, let values = body["values"], values.kind == .array {
            // An Agentforce rich reply without its own message: its values, readable as JSON.
            values.forEachElement { add($0.jsonValue.jsonText) }
        }
        if lines.isEmpty { add(content.attachments.map(\.name).filter { !$0.isEmpty }.joined(separator: ", ")) }
        return lines.joined(separator: "\n")
    }

    private func choices(_ abstract: JSONElement, into content: inout LiveMessageContent) throws -> String {
        guard let body = abstract["choices"], body.kind == .object else {
            throw missing("abstractMessage.choices", "the choices message has no choices object")
        }
        content.formatType = body["formatType"]?.string
        (body["optionItems"] ?? body["options"] ?? body["items"])?.forEachElement {
            content.options.append(Self.option($0))
        }
        if let text = (body["text"] ?? body["message"])?.string, !text.isEmpty { return text }
        return content.options.map(\.title).filter { !$0.isEmpty }.joined(separator: "\n")
    }

    private func selections(
        _ abstract: JSONElement, into content: inout LiveMessageContent, memory: LiveStreamMemory
    ) throws -> String {
        guard let body = abstract["choicesResponse"], body.kind == .object else {
            throw missing("abstractMessage.choicesResponse", "the choices response has no choicesResponse object")
        }
        content.formatType = body["formatType"]?.string
        body["selectedOptions"]?.forEachElement { picked in
            var option = Self.option(picked)
            if option.title.isEmpty { option.title = memory.title(ofOption: option.id) ?? "" }
            content.selectedOptions.append(option)
        }
        return content.selectedOptions.map(\.title).filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// A message type this model does not name (forms): the first text of its content object.
    private static func otherContentText(_ abstract: JSONElement, into content: inout LiveMessageContent) -> String {
        var text = ""
        abstract.forEachMember { _, value in
            guard text.isEmpty, value.kind == .object else { return }
            if content.formatType == nil { content.formatType = value["formatType"]?.string }
            text = (value["text"] ?? value["message"] ?? value["title"])?.string ?? ""
        }
        return text
    }

    /// One option or selection: `titleItem.title` (buttons, quick replies, carousel cards),
    /// `title` or `optionTitle.title`, then `label`; its identifier `optionIdentifier`, else
    /// `optionId`, else `referenceId`.
    static func option(_ element: JSONElement) -> MessageOption {
        let titleItem = element["titleItem"]
        let titles: [JSONElement?] = [
            titleItem?["title"], element["title"], element["optionTitle"]?["title"], element["title"]?["title"],
            element["label"],
        ]
        let ids: [JSONElement?] = [
            element["optionIdentifier"], element["optionId"], titleItem?["referenceId"], element["referenceId"],
        ]
        return MessageOption(
            id: Self.firstString(ids) ?? "", title: Self.firstString(titles) ?? "",
            subtitle: (titleItem?["subTitle"] ?? element["subTitle"])?.string)
    }

    /// The first of `candidates` that is a string.
    private static func firstString(_ candidates: [JSONElement?]) -> String? {
        for candidate in candidates {
            if let text = candidate?.string { return text }
        }
        return nil
    }

    /// The message in the history shape: a text part when there is text, a file part per
    /// attachment, the sender's name, and the options, selections and wire types.
    static func historyJSON(
        id: String, sender: ParticipantRole, name: String?, text: String, _ milliseconds: Double,
        _ content: LiveMessageContent
    ) -> JSONTree {
        var parts: [JSONTree] = text.isEmpty ? [] : [["type": "text", "text": .string(text)]]
        for file in content.attachments {
            var part = JSONObject([("type", "file"), ("url", .string(file.url)), ("filename", .string(file.name))])
            if let type = file.mimeType { part["mediaType"] = .string(type) }
            parts.append(.object(part))
        }
        var json = JSONObject([
            ("id", JSONTree.string(id)), ("role", .string(sender.description)), ("parts", .array(parts)),
            ("createdAt", .number(JSONNumber(milliseconds / 1000))),
        ])
        if let name { json["senderName"] = .string(name) }
        if let type = content.messageType { json["messageType"] = .string(type) }
        if let type = content.formatType { json["formatType"] = .string(type) }
        if !content.options.isEmpty { json["options"] = .array(content.options.map(Self.optionJSON)) }
        if !content.selectedOptions.isEmpty {
            json["selectedOptions"] = .array(content.selectedOptions.map(Self.optionJSON))
        }
        if let reply = content.inReplyToMessageId { json["inReplyToMessageId"] = .string(reply) }
        if content.completesStream { json["completesStream"] = true }
        return .object(json)
    }

    private static func optionJSON(_ option: MessageOption) -> JSONTree {
        var object = JSONObject([("id", JSONTree.string(option.id)), ("title", .string(option.title))])
        if let subtitle = option.subtitle { object["subtitle"] = .string(subtitle) }
        return .object(object)
    }
}
