// History and conversation-management commands (issues 4 and 7):
//
//   chatstream conversations [--base-url URL] [--agent ID] [--limit N] [--all] [--json]
//                            [--status S]... [--tag T]... [--unread] [--search TEXT] [--order asc|desc]
//   chatstream messages CONVERSATION_ID [--base-url URL] [--agent ID] [--limit N] [--all] [--json]
//   chatstream conversation ID [--json]      chatstream close ID [--json]
//   chatstream tag ID TAG... [--json]        chatstream read ID MESSAGE_ID [--json]
//
// `--json` prints one JSON object per line in the wire shape. `--all` follows the pages to the
// end; messages are then printed oldest to newest overall. API errors: `error: <STATUS> <CODE>:
// <message>` on stderr, exit 1; bad flags: usage, exit 2.

import ChatStream
import ChatStreamClient
import Foundation

enum HistoryCommands {
    static let usage = """
        usage: chatstream conversations [--base-url URL] [--agent ID] [--limit N] [--all] [--json]
                                        [--status ongoing|ended|taken_over]... [--tag T]... [--unread]
                                        [--search TEXT] [--order asc|desc]
               chatstream messages CONVERSATION_ID [--base-url URL] [--agent ID] [--limit N] [--all] [--json]
               chatstream conversation ID [--base-url URL] [--agent ID] [--json]
               chatstream close ID [--base-url URL] [--agent ID] [--json]
               chatstream tag ID TAG... [--base-url URL] [--agent ID] [--json]
               chatstream read ID MESSAGE_ID [--base-url URL] [--agent ID] [--json]

        """

    /// What a command needs, checked before any server is started.
    enum Plan: Sendable {
        case conversations(ConversationQuery, all: Bool)
        case messages(String, limit: Int?, all: Bool)
        case conversation(String)
        case close(String)
        case tag(String, [String])
        case read(String, String)
    }

    static func run(_ command: String, _ arguments: [String]) -> Int32 {
        let parsed: ArgumentParser
        let plan: Plan
        do {
            parsed = try ArgumentParser(
                arguments, valued: ["base-url", "agent", "limit", "status", "tag", "search", "order"],
                switches: ["all", "json", "unread"])
            plan = try makePlan(command, parsed)
        } catch let error as ArgumentParser.UsageError {
            return ClientSupport.usage(error.message, usage)
        } catch {
            return ClientSupport.usage("\(error)", usage)
        }
        let made: (client: ChatClient, finish: @Sendable () -> Void)
        do {
            made = try ClientSupport.makeClient(parsed)
        } catch let error as ArgumentParser.UsageError {
            return ClientSupport.usage(error.message, usage)
        } catch {
            return ClientSupport.report(error)
        }
        defer { made.finish() }
        let client = made.client
        let json = parsed.has("json")
        return ClientSupport.wait {
            do {
                try await execute(plan, client: client, json: json)
                Output.flush()
                return 0
            } catch {
                return ClientSupport.report(error)
            }
        }
    }

    static func makePlan(_ command: String, _ parsed: ArgumentParser) throws -> Plan {
        let positional = parsed.positional
        func expect(_ count: Int, _ what: String) throws {
            guard positional.count == count, positional.allSatisfy({ !$0.isEmpty }) else {
                throw ArgumentParser.UsageError(message: "\(command) needs \(what)")
            }
        }
        func only(_ allowed: Set<String>) throws {
            let used = Set(parsed.options.keys).union(parsed.switches).subtracting(["base-url", "agent", "json"])
            if let extra = used.subtracting(allowed).sorted().first {
                throw ArgumentParser.UsageError(message: "\(command) does not take --\(extra)")
            }
        }
        switch command {
        case "conversations":
            try expect(0, "no positional arguments")
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
            return .conversations(query, all: parsed.has("all"))
        case "messages":
            try expect(1, "exactly one CONVERSATION_ID")
            try only(["limit", "all"])
            return .messages(positional[0], limit: try ClientSupport.limit(parsed), all: parsed.has("all"))
        case "conversation":
            try expect(1, "exactly one ID")
            try only([])
            return .conversation(positional[0])
        case "close":
            try expect(1, "exactly one ID")
            try only([])
            return .close(positional[0])
        case "tag":
            guard positional.count >= 1, !positional[0].isEmpty else {
                throw ArgumentParser.UsageError(message: "tag needs an ID and TAGs")
            }
            try only([])
            return .tag(positional[0], Array(positional.dropFirst()))
        case "read":
            try expect(2, "an ID and a MESSAGE_ID")
            try only([])
            return .read(positional[0], positional[1])
        default:
            throw ArgumentParser.UsageError(message: "unknown command \"\(command)\"")
        }
    }

    static func execute(_ plan: Plan, client: ChatClient, json: Bool) async throws {
        switch plan {
        case .conversations(let query, let all):
            var page: PaginatedResponse<Conversation>? = try await client.listConversations(query)
            while let current = page {
                for conversation in current.data { print(conversation, json: json) }
                Output.flush()
                page = all ? try await current.loadMore() : nil
            }
        case .messages(let id, let limit, let all):
            var pages: [[Message]] = []
            var page: PaginatedResponse<Message>? = try await client.listMessages(conversationId: id, limit: limit)
            while let current = page {
                pages.append(current.data)
                page = all ? try await current.loadMore() : nil
            }
            // Each later page is older: print oldest to newest overall, never an ID twice.
            var seen = Set<String>()
            for message in pages.reversed().joined() where seen.insert(message.id).inserted {
                print(message, json: json)
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

    static func print(_ conversation: Conversation, json: Bool) {
        if json {
            Output.standardOutput(conversation.jsonValue.jsonText + "\n")
            return
        }
        var line = "\(conversation.id)\t\(conversation.status.rawValue)\t\(timestamp(conversation.updatedAt))"
        line += "\t\(conversation.title ?? "(untitled)")"
        if let tags = conversation.tags, !tags.isEmpty { line += "\t[\(tags.joined(separator: ", "))]" }
        if let unread = conversation.unreadCount, unread > 0 { line += "\t(\(unread) unread)" }
        Output.standardOutput(line + "\n")
    }

    static func print(_ message: Message, json: Bool) {
        if json {
            Output.standardOutput(message.jsonValue.jsonText + "\n")
            return
        }
        var text = message.text
        if text.isEmpty {
            text = message.parts.map { "[\($0.jsonValue["type"]?.stringValue ?? "part")]" }.joined(separator: " ")
        }
        Output.standardOutput("\(message.id)\t\(timestamp(message.date))\t\(message.sender.rawValue): \(text)\n")
    }

    static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
