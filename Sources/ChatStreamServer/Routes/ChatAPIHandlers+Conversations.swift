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
            try PageCursor.decode(
                text, kind: "conversations", scope: caller.agentId ?? "", filters: filterKey, key: cursorKey
            ).anchor
        }
        let extensions = extensions
        let (items, hasMore, total) = try store.read(search: query.search != nil) { store in
            try store.conversationPage(for: caller, query: query, after: anchor)
        }
        // Written after the read, as bytes (WireShapes+Bytes.swift): the read holds its reader no longer
        // than the query.
        let cursor =
            hasMore
            ? PageCursor(
                kind: "conversations", scope: caller.agentId ?? "", anchor: items.last!.record.updateSequence,
                filters: filterKey
            ).encoded(key: cursorKey)
            : nil
        try writer.respond(
            status: 200, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: WireShapes.conversationPageBytes(
                items, extensions: extensions, cursor: cursor, hasMore: hasMore, total: total))
    }

    /// POST /agents/{agentId}/conversations `{"id"?, "title"?}` (section 6): 201 with a new
    /// conversation; the same `id` again from its owner answers 200 with it, from anyone else 409.
    func createConversation(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let body = request.body.isEmpty ? JSONObject() : try jsonObject(request)
        let id = try optionalUUID(body, "id") ?? Self.newID()
        let title = try optionalString(body, "title")
        if let title { try StringLimits.check(title, field: "title", maxBytes: StringLimits.titleBytes) }
        let now = Self.now
        let (value, created): (JSONTree, Bool) = try store.write { store in
            if let existing = try store.conversation(id) {
                guard caller.owns(existing) else { throw APIError.conversationConflict }
                return (WireShapes.conversation(try store.view(existing, for: caller), extensions: true), false)
            }
            let record = try store.createConversation(id: id, title: title, for: caller, now: now)
            try checkQuotas(store, for: caller)
            return (WireShapes.conversation(try store.view(record, for: caller), extensions: true), true)
        }
        try respond(["data": value], status: created ? 201 : 200, writer)
    }

    /// GET /agents/{agentId}/conversations/{id}/messages.
    func messages(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let query = try ListQuery(request: request, filters: false)
        let anchor = try query.cursor.map { text throws(APIError) in
            try PageCursor.decode(text, kind: "messages", scope: conversationId, filters: "", key: cursorKey).anchor
        }
        let page: JSONTree = try store.read { store in
            _ = try store.conversation(conversationId, for: caller)
            let (items, hasMore, total) = try store.messagePage(of: conversationId, limit: query.limit, before: anchor)
            let cursor =
                hasMore
                ? PageCursor(kind: "messages", scope: conversationId, anchor: items.first!.sequence, filters: "")
                    .encoded(key: cursorKey)
                : nil
            return WireShapes.page(items.map(WireShapes.message), cursor: cursor, hasMore: hasMore, total: total)
        }
        try respond(page, writer)
    }

    /// GET /agents/{agentId}/conversations/{id}.
    func conversation(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws
    {
        let caller = try Caller(request: request, verifier: verifier)
        let value: JSONTree = try store.read { store in
            WireShapes.conversation(
                try store.view(store.conversation(conversationId, for: caller), for: caller), extensions: true)
        }
        try respond(["data": value], writer)
    }

    /// POST /agents/{agentId}/conversations/{id}/close: now `ended` (idempotent).
    func close(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let now = Self.now
        let value: JSONTree = try store.write { store in
            if try store.conversation(conversationId, for: caller).status != "ended" {
                try store.setStatus("ended", of: conversationId)
                try store.touch(conversationId, now: now)
            }
            return WireShapes.conversation(
                try store.view(store.conversation(conversationId, for: caller), for: caller), extensions: true)
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
        let value: JSONTree = try store.write { store in
            let record = try store.conversation(conversationId, for: caller)
            try store.setTags(tags, of: conversationId, identity: caller.ownerKey)
            return WireShapes.conversation(try store.view(record, for: caller), extensions: true)
        }
        try respond(["data": value], writer)
    }

    /// POST /agents/{agentId}/conversations/{id}/read `{"messageId"}`: the caller has read up to that message.
    func read(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let body = try jsonObject(request)
        let messageId = APIRoute.normalizedID(try requiredString(body, "messageId"))
        let value: JSONTree = try store.write { store in
            let record = try store.conversation(conversationId, for: caller)
            guard let message = try store.message(messageId, in: conversationId) else {
                throw APIError.messageNotFound
            }
            try store.markRead(conversationId, identity: caller.ownerKey, upTo: message.sequence)
            return WireShapes.conversation(try store.view(record, for: caller), extensions: true)
        }
        try respond(["data": value], writer)
    }
}
