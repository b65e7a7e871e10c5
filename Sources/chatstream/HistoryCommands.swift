// History and conversation-management commands (issues 4 and 7): conversations, messages,
// conversation, close, tag and read; their flags are in the `Command` values below.
//
// `--json` prints one JSON object per line in the wire shape. `--all` follows the pages to the
// end; messages are then printed oldest to newest overall. `conversations` and `messages` take
// `--source network|local|auto` (default network): `local` reads the client's cache only,
// `auto` prints the cached lines first, then only the server's lines that are new or changed. API errors: `error: <STATUS> <CODE>:
// <message>` on stderr, exit 1; bad flags: usage, exit 2.

import ChatStream
import ChatStreamClient
import Foundation

enum HistoryCommands {
    /// The flags every history command takes.
    static let common: [Flag] = [.baseURL, .agent, .json]
    static let limit = Flag.value("limit", "N")
    static let all = Flag.switch("all")
    static let source = Flag.value("source", "network|local|auto")

    static let conversations = Command(
        "conversations",
        flags: common + [
            limit, all, source, .value("status", "ongoing|ended|taken_over", repeatable: true),
            .value("tag", "T", repeatable: true), .switch("unread"), .value("search", "TEXT"),
            .value("order", "asc|desc"),
        ],
        summary: "list conversations (filters combine with AND)",
        run: { try await execute(conversationsPlan($0), $0) })

    static let messages = Command(
        "messages", operands: "CONVERSATION_ID", flags: common + [limit, all, source],
        summary: "list a conversation's messages (--all: oldest to newest)",
        run: { parsed in
            try parsed.expectPositional(1, "exactly one CONVERSATION_ID", command: "messages")
            let plan = Plan.messages(
                parsed.positional[0], limit: try ClientSupport.limit(parsed), all: parsed.has("all"),
                source: try ClientSupport.source(parsed))
            return try await execute(plan, parsed)
        })

    static let conversation = Command(
        "conversation", operands: "ID", flags: common, summary: "show one conversation",
        run: { parsed in
            try parsed.expectPositional(1, "exactly one ID", command: "conversation")
            return try await execute(.conversation(parsed.positional[0]), parsed)
        })

    static let close = Command(
        "close", operands: "ID", flags: common,
        summary: "end a conversation (later chats answer 403 CHAT_CONVERSATION_NOT_ONGOING)",
        run: { parsed in
            try parsed.expectPositional(1, "exactly one ID", command: "close")
            return try await execute(.close(parsed.positional[0]), parsed)
        })

    static let tag = Command(
        "tag", operands: "ID TAG...", flags: common,
        summary: "replace your tags on a conversation (no TAG clears them)",
        run: { parsed in
            guard let id = parsed.positional.first, !id.isEmpty else {
                throw ArgumentParser.UsageError(message: "tag needs an ID and TAGs")
            }
            return try await execute(.tag(id, Array(parsed.positional.dropFirst())), parsed)
        })

    static let read = Command(
        "read", operands: "ID MESSAGE_ID", flags: common, summary: "mark a conversation read up to a message",
        run: { parsed in
            try parsed.expectPositional(2, "an ID and a MESSAGE_ID", command: "read")
            return try await execute(.read(parsed.positional[0], parsed.positional[1]), parsed)
        })

    /// What a command does, checked before any server is started.
    enum Plan: Sendable {
        case conversations(ConversationQuery, all: Bool, source: HistorySource)
        case messages(String, limit: Int?, all: Bool, source: HistorySource)
        case conversation(String)
        case close(String)
        case tag(String, [String])
        case read(String, String)
    }

    static func conversationsPlan(_ parsed: ArgumentParser) throws -> Plan {
        try parsed.expectPositional(0, "no positional arguments", command: "conversations")
        var query = ConversationQuery(limit: try ClientSupport.limit(parsed))
        for status in parsed.values("status") {
            guard let known = ConversationStatus(rawValue: status) else {
                throw ArgumentParser.UsageError(message: "--status must be ongoing, ended or taken_over")
            }
            query.statuses.append(known)
        }
        query.tags = parsed.values("tag")
        query.unreadOnly = parsed.has("unread")
        query.search = parsed.value("search")
        if let order = parsed.value("order") {
            guard let known = ConversationQuery.Order(rawValue: order) else {
                throw ArgumentParser.UsageError(message: "--order must be asc or desc")
            }
            query.order = known
        }
        return .conversations(query, all: parsed.has("all"), source: try ClientSupport.source(parsed))
    }

    /// Starts the client (an embedded server without `--base-url`) and carries `plan` out.
    static func execute(_ plan: Plan, _ parsed: ArgumentParser) async throws -> Int32 {
        let made = try ClientSupport.makeClient(parsed)
        defer { made.finish() }
        try await execute(plan, client: made.client, json: parsed.has("json"))
        Output.flush()
        return 0
    }

    static func execute(_ plan: Plan, client: ChatbaseClient, json: Bool) async throws {
        switch plan {
        case .conversations(let query, let all, let source):
            try await printInTurn(source) { source in
                var lines: [String] = []
                var page: PaginatedResponse<Conversation>? = try await client.listConversations(query, source: source)
                while let current = page {
                    lines += current.data.map { line($0, json: json) }
                    page = all ? try await current.loadMore() : nil
                }
                return lines
            }
        case .messages(let id, let limit, let all, let source):
            try await printInTurn(source) { source in
                var pages: [[Message]] = []
                var page: PaginatedResponse<Message>? = try await client.listMessages(
                    conversationId: id, limit: limit, source: source)
                while let current = page {
                    pages.append(current.data)
                    page = all ? try await current.loadMore() : nil
                }
                // Each later page is older: print oldest to newest overall, never an ID twice.
                var seen = Set<String>()
                return pages.reversed().joined().filter { seen.insert($0.id).inserted }.map { line($0, json: json) }
            }
        case .conversation(let id):
            print(try await client.conversation(id: id), json: json)
        case .close(let id):
            print(try await client.closeConversation(id: id), json: json)
        case .tag(let id, let tags):
            print(try await client.setTags(tags, conversationId: id), json: json)
        case .read(let id, let messageId):
            print(try await client.markRead(conversationId: id, messageId: messageId), json: json)
        }
    }

    /// Prints the lines `source` gives (`auto`: the cache's, then the server's that are new or
    /// changed), flushing after each batch.
    static func printInTurn(
        _ source: HistorySource, _ lines: (HistorySource) async throws -> [String]
    ) async throws {
        guard source == .localThenNetwork else {
            for text in try await lines(source) { Output.standardOutput(text) }
            return
        }
        let cached = try await lines(.local)
        for text in cached { Output.standardOutput(text) }
        Output.flush()
        let printed = Set(cached)
        for text in try await lines(.network) where !printed.contains(text) { Output.standardOutput(text) }
    }

    static func print(_ conversation: Conversation, json: Bool) {
        Output.standardOutput(line(conversation, json: json))
    }

    static func print(_ message: Message, json: Bool) {
        Output.standardOutput(line(message, json: json))
    }

    /// A conversation's output line (with its newline).
    static func line(_ conversation: Conversation, json: Bool) -> String {
        if json { return conversation.jsonValue.jsonText + "\n" }
        var line = "\(conversation.id)\t\(conversation.status.rawValue)\t\(timestamp(conversation.updatedAt))"
        line += "\t\(conversation.title ?? "(untitled)")"
        if let tags = conversation.tags, !tags.isEmpty { line += "\t[\(tags.joined(separator: ", "))]" }
        if let unread = conversation.unreadCount, unread > 0 { line += "\t(\(unread) unread)" }
        return line + "\n"
    }

    /// A message's output line (with its newline).
    static func line(_ message: Message, json: Bool) -> String {
        if json { return message.jsonValue.jsonText + "\n" }
        var text = message.text
        if text.isEmpty {
            text = message.assembledParts.map { "[\($0.jsonValue["type"]?.stringValue ?? "part")]" }.joined(
                separator: " ")
        }
        return "\(message.id)\t\(timestamp(message.date))\t\(message.sender.rawValue): \(text)\n"
    }

    static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
