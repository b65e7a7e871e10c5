// The conversation side of the API: the list and history pages (section 1) and the
// conversation-management extensions: get, close, tags, read (section 5).
//
// Conversation pages: newest change first (or oldest with `order=asc`); the cursor anchors on the
// last conversation's change number. Message pages: the first page holds the newest messages,
// each later page older ones, and every page runs oldest to newest; the cursor anchors on the
// oldest message handed out.

import ChatStream

extension ChatAPIHandlers {
    /// GET /agents/{agentId}/conversations.
    func listConversations(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let query = try ListQuery(request: request, filters: extensions)
        let filterKey = query.filterKey
        let anchor = try query.cursor.map { text throws(APIError) in
            try PageCursor.decode(text, kind: "conversations", scope: "", filters: filterKey).anchor
        }
        let extensions = extensions
        let page: JSONTree = try store.read { state in
            var matches = state.conversations.values.filter { caller.owns($0) && query.matches($0, caller: caller) }
            matches.sort {
                query.ascending ? $0.updateSequence < $1.updateSequence : $0.updateSequence > $1.updateSequence
            }
            let total = matches.count
            if let anchor {
                matches.removeAll { query.ascending ? $0.updateSequence <= anchor : $0.updateSequence >= anchor }
            }
            let items = Array(matches.prefix(query.limit))
            let hasMore = matches.count > items.count
            let cursor =
                hasMore
                ? PageCursor(kind: "conversations", scope: "", anchor: items.last!.updateSequence, filters: filterKey)
                    .encoded
                : nil
            return WireShapes.page(
                items.map { WireShapes.conversation($0, caller: caller, extensions: extensions) }, cursor: cursor,
                hasMore: hasMore, total: total)
        }
        try respond(page, writer)
    }

    /// GET /agents/{agentId}/conversations/{id}/messages.
    func messages(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let query = try ListQuery(request: request, filters: false)
        let anchor = try query.cursor.map { text throws(APIError) in
            try PageCursor.decode(text, kind: "messages", scope: conversationId, filters: "").anchor
        }
        let page: JSONTree = try store.read { state in
            let all = try state.conversation(conversationId, for: caller).visibleMessages
            let older = anchor.map { anchor in all.filter { $0.sequence < anchor } } ?? all
            let items = Array(older.suffix(query.limit))
            let hasMore = older.count > items.count
            let cursor =
                hasMore
                ? PageCursor(kind: "messages", scope: conversationId, anchor: items.first!.sequence, filters: "")
                    .encoded
                : nil
            return WireShapes.page(items.map(WireShapes.message), cursor: cursor, hasMore: hasMore, total: all.count)
        }
        try respond(page, writer)
    }

    /// GET /agents/{agentId}/conversations/{id}.
    func conversation(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws
    {
        let caller = try Caller(request: request, verifier: verifier)
        let value: JSONTree = try store.read { state in
            WireShapes.conversation(
                try state.conversation(conversationId, for: caller), caller: caller, extensions: true)
        }
        try respond(["data": value], writer)
    }

    /// POST /agents/{agentId}/conversations/{id}/close: now `ended` (idempotent).
    func close(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let now = Self.now
        let value: JSONTree = try store.update { state in
            if try state.conversation(conversationId, for: caller).status != "ended" {
                state.conversations[conversationId]!.status = "ended"
                state.touch(conversationId, now: now)
            }
            return WireShapes.conversation(state.conversations[conversationId]!, caller: caller, extensions: true)
        }
        try respond(["data": value], writer)
    }

    /// PUT /agents/{agentId}/conversations/{id}/tags `{"tags":[...]}`: replaces the caller's own tags.
    func tags(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let body = try jsonObject(request)
        guard let array = body["tags"]?.arrayValue else {
            throw APIError.invalidBody("tags must be an array of strings", field: "tags")
        }
        var tags: [String] = []
        for element in array {
            guard let tag = element.stringValue else {
                throw APIError.invalidBody("tags must be an array of strings", field: "tags")
            }
            if !tags.contains(tag) { tags.append(tag) }
        }
        try ListQuery.validate(tags: tags)
        let value: JSONTree = try store.update { state in
            try state.withConversation(conversationId, for: caller) { $0.tags[caller.identity] = tags }
            return WireShapes.conversation(state.conversations[conversationId]!, caller: caller, extensions: true)
        }
        try respond(["data": value], writer)
    }

    /// POST /agents/{agentId}/conversations/{id}/read `{"messageId"}`: the caller has read up to that message.
    func read(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let body = try jsonObject(request)
        let messageId = try requiredString(body, "messageId")
        let value: JSONTree = try store.update { state in
            try state.withConversation(conversationId, for: caller) { conversation in
                guard let message = conversation.messages.first(where: { $0.id == messageId }) else {
                    throw APIError.messageNotFound
                }
                conversation.lastRead[caller.identity] = max(
                    conversation.lastRead[caller.identity] ?? 0, message.sequence)
            }
            return WireShapes.conversation(state.conversations[conversationId]!, caller: caller, extensions: true)
        }
        try respond(["data": value], writer)
    }
}
