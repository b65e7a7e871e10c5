// How the client files its answers in its HistoryStore, and whose rows it reads: the scope is the
// server (the store's serverName or the base URL), the agent and the identity (the signed-in user,
// else the device), so no identity ever reads another's cache.

import Foundation

extension ChatbaseClient {
    /// `<server>|<agent>|` for this client.
    var storePrefix: String {
        var server = store?.serverName ?? baseURL.absoluteString
        while server.hasSuffix("/") { server.removeLast() }
        return server + "|" + agentId + "|"
    }

    /// The scope of the caller's rows now; nil without a store (or without a device ID).
    var storeScope: String? {
        guard store != nil else { return nil }
        let (token, userId) = withState { ($0.userToken, $0.userId) }
        if let token {
            return storePrefix + (userId.map { "u:" + $0 } ?? "t:" + Self.tokenDigest(token))
        }
        guard let device = try? storedDeviceId(), !device.isEmpty else { return nil }
        return storePrefix + "d:" + device
    }

    /// Every scope the signed-in user's rows may be under (by user ID, and by token before the
    /// server named the user); empty when anonymous.
    var signedInScopes: [String] {
        guard store != nil else { return [] }
        let (token, userId) = withState { ($0.userToken, $0.userId) }
        guard let token else { return [] }
        var scopes = [storePrefix + "t:" + Self.tokenDigest(token)]
        if let userId { scopes.append(storePrefix + "u:" + userId) }
        return scopes
    }

    /// The anonymous device's scope, whoever is signed in; nil without a store or a device ID.
    var deviceStoreScope: String? {
        guard store != nil, let device = try? storedDeviceId(), !device.isEmpty else { return nil }
        return storePrefix + "d:" + device
    }

    /// After `verify`: the device's rows become the user's (the server moved its conversations),
    /// as do the same user's rows under an earlier scope; another user's rows are deleted.
    /// `before` is the scope from before the token was set.
    func moveCacheToUser(from before: String?, previousUserScopes: [String], sameUser: Bool) {
        guard let store, let after = storeScope else { return }
        if previousUserScopes.isEmpty || sameUser {
            for scope in previousUserScopes.isEmpty ? [before].compactMap({ $0 }) : previousUserScopes {
                try? store.move(scope: scope, to: after)
            }
        } else {
            try? store.clear(scopes: previousUserScopes)
            if let device = deviceStoreScope { try? store.move(scope: device, to: after) }
        }
    }

    /// A stable digest of a token (FNV-1a, 64 bits) so the token itself is never written.
    static func tokenDigest(_ token: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// The key of a listing's cursors: the conversation list with its query, or one conversation's messages.
    static func listKey(conversations query: ConversationQuery) -> String {
        "conversations?" + query.queryItems.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    static func listKey(messagesOf conversationId: String) -> String { "messages:" + conversationId }

    // MARK: Recording answers (a cache: a failed write never fails the call)

    /// Files a page of conversations; `after` (the cursor that asked for it) and `ascending` place
    /// it in the server's order of changes, so ties read back as the server lists them.
    func record(
        conversations page: [Conversation], list: String, after: String?, next: String?, hasMore: Bool, total: Int,
        ascending: Bool = false
    ) {
        guard let store, let scope = storeScope else { return }
        let placement: HistoryStore.PagePlacement = (after == nil) != ascending ? .top : .bottom
        try? store.save(conversations: page, scope: scope, ascending: ascending, placement: placement)
        try? store.save(cursor: next, hasMore: hasMore, total: total, list: list, after: after, scope: scope)
    }

    func record(
        messages page: [Message], conversationId: String, after: String?, next: String?, hasMore: Bool, total: Int
    ) {
        guard let store, let scope = storeScope else { return }
        let source: HistoryStore.MessageSource = after == nil ? .newestPage : .olderPage
        try? store.save(messages: page, conversationId: conversationId, scope: scope, source: source)
        try? store.save(
            cursor: next, hasMore: hasMore, total: total, list: Self.listKey(messagesOf: conversationId), after: after,
            scope: scope)
    }

    func record(_ conversation: Conversation) {
        guard let store, let scope = storeScope else { return }
        try? store.save(conversations: [conversation], scope: scope)
    }

    /// Keeps the cache current from a live event: a conversation as the server lists it, or a new message.
    func record(live event: LiveEvent) {
        guard let store, let scope = storeScope else { return }
        switch event.kind {
        case .conversationCreated(let conversation), .conversationUpdated(let conversation):
            try? store.save(conversations: [conversation], scope: scope)
        case .messageCreated(let conversationId, let message):
            try? store.save(messages: [message], conversationId: conversationId, scope: scope)
        default:
            break
        }
    }

    /// Files a finished reply; `retried`: the message a retry regenerated (gone from the server).
    func record(reply: ChatResponse, userText: String?, clientMessageId: String?, retried: String? = nil) {
        guard let store, let scope = storeScope else { return }
        try? store.save(
            reply: reply, userText: userText, clientMessageId: clientMessageId, retried: retried, scope: scope)
    }

    /// The cached copy of conversation `id` (nil without a store or when it is not cached).
    func cachedConversation(id: String) -> Conversation? {
        guard let store, let scope = storeScope else { return nil }
        return try? store.conversation(id: id, scope: scope)
    }
}
