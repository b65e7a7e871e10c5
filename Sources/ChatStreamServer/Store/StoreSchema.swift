// StoreSchema: the server database's tables, as migrations from an empty file.
//
// The version lives in the file's header (`PRAGMA user_version`); migration N brings version N to
// N+1 inside one transaction. Append new migrations; never edit a shipped one.
//
// conversations  one row per conversation; `owner_key` is `u:<user>` or `d:<device>` (the list
//                partition), listed by keyset on (owner_key, update_seq)
// messages       one row per message, `seq` is the store-wide sequence number (history order);
//                `parts` is the message's parts array in the history wire shape (one value, never
//                queried inside); `search_text` is its lowercased text (the `q=` filter);
//                `client_message_id` (unique per conversation) makes chats idempotent and
//                `reply_to` links a reply to the user message it answers
// tags, reads    each identity's tags and read position per conversation (an identity is a caller's
//                owner key: `u:<user>` when signed in, else `d:<device>`)
// events         the live-event log: each audience's (owner key's) latest events, for live streams
//                to resume from; `event_evictions` keeps, per audience, the newest ID pruned
// counters       the store-wide sequence
// secrets        (version 2) the key that seals page cursors
// messages.size, conversations.stored_bytes
//                (version 2) the UTF-8 size of a message's parts and their sum per conversation,
//                kept as they change, for the per-identity quota; messages.preview (version 2) the
//                first 1,001 characters of its text, for list previews without loading the parts
// messages.reply_state, messages.reply_events
//                (version 3) a streamed reply's state while it is not simply finished (`generating`,
//                `stopped`, `interrupted`; NULL otherwise) and how many of its events its stored
//                parts cover (PROTOCOLS.md section 8)
// events.size    (version 4) the UTF-8 size of an event's JSON, for the log's byte bound and the
//                per-identity quota
// conversations.agent_id
//                (version 5) the agent the conversation belongs to (PROTOCOLS.md section 9: lists,
//                histories and chats are per agent), listed by keyset on (owner_key, agent_id,
//                update_seq); NULL for a conversation stored before, which the server gives to the
//                first agent it serves when it starts

enum StoreSchema {
    static let migrations: [String] = [
        """
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            title TEXT,
            title_search TEXT NOT NULL DEFAULT '',
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            update_seq INTEGER NOT NULL UNIQUE,
            owner_device TEXT NOT NULL,
            owner_user TEXT,
            owner_key TEXT NOT NULL,
            status TEXT NOT NULL
        );
        CREATE INDEX conversations_by_owner ON conversations(owner_key, update_seq);
        CREATE INDEX conversations_by_anonymous_device ON conversations(owner_device) WHERE owner_user IS NULL;
        CREATE TABLE messages (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            parts TEXT NOT NULL,
            visible INTEGER NOT NULL,
            search_text TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            client_message_id TEXT,
            reply_to INTEGER,
            finish_reason TEXT
        );
        CREATE INDEX messages_by_conversation ON messages(conversation_id, seq);
        CREATE UNIQUE INDEX messages_by_client_id ON messages(conversation_id, client_message_id)
            WHERE client_message_id IS NOT NULL;
        CREATE INDEX messages_by_reply ON messages(reply_to) WHERE reply_to IS NOT NULL;
        CREATE TABLE tags (
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            identity TEXT NOT NULL,
            position INTEGER NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (conversation_id, identity, tag)
        );
        CREATE TABLE reads (
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            identity TEXT NOT NULL,
            last_seq INTEGER NOT NULL,
            PRIMARY KEY (conversation_id, identity)
        );
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            owner_key TEXT NOT NULL,
            type TEXT NOT NULL,
            data TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX events_by_owner ON events(owner_key, seq);
        CREATE TABLE event_evictions (owner_key TEXT PRIMARY KEY, through INTEGER NOT NULL);
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO counters(name, value) VALUES ('sequence', 0);
        """,
        """
        ALTER TABLE messages ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
        UPDATE messages SET size = length(CAST(parts AS BLOB));
        ALTER TABLE messages ADD COLUMN preview TEXT NOT NULL DEFAULT '';
        UPDATE messages SET preview = substr(coalesce((SELECT group_concat(json_extract(p.value, '$.text'), ' ')
            FROM json_each(messages.parts) p WHERE json_extract(p.value, '$.type') = 'text'), ''), 1, 1001);
        ALTER TABLE conversations ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
        UPDATE conversations SET stored_bytes =
            (SELECT coalesce(sum(size), 0) FROM messages WHERE conversation_id = conversations.id);
        CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
        """,
        """
        ALTER TABLE messages ADD COLUMN reply_state TEXT;
        ALTER TABLE messages ADD COLUMN reply_events INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX messages_generating ON messages(reply_state) WHERE reply_state = 'generating';
        """,
        """
        ALTER TABLE events ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
        UPDATE events SET size = length(CAST(data AS BLOB));
        """,
        """
        ALTER TABLE conversations ADD COLUMN agent_id TEXT;
        CREATE INDEX conversations_by_owner_and_agent ON conversations(owner_key, agent_id, update_seq);
        DROP INDEX conversations_by_owner;
        """,
    ]
}
