// The history store's schema, one migration per version (PRAGMA user_version counts them).

extension HistoryStore {
    /// Migration `i` makes schema version `i + 1`; append, never edit.
    static let migrations: [String] = [
        """
        CREATE TABLE conversations(
            scope TEXT NOT NULL, id TEXT NOT NULL, title TEXT, created_at REAL NOT NULL,
            updated_at REAL NOT NULL, user_id TEXT, status TEXT NOT NULL, tags TEXT, unread_count INTEGER,
            seq INTEGER NOT NULL, PRIMARY KEY(scope, id));
        CREATE INDEX conversations_by_update ON conversations(scope, updated_at DESC, seq DESC);
        CREATE TABLE messages(
            scope TEXT NOT NULL, id TEXT NOT NULL, conversation_id TEXT NOT NULL, sender TEXT NOT NULL,
            created_at REAL NOT NULL, feedback TEXT, score REAL, client_message_id TEXT,
            PRIMARY KEY(scope, id));
        CREATE INDEX messages_by_time ON messages(scope, conversation_id, created_at);
        CREATE TABLE message_parts(
            scope TEXT NOT NULL, message_id TEXT NOT NULL, position INTEGER NOT NULL, part TEXT NOT NULL,
            PRIMARY KEY(scope, message_id, position));
        CREATE TABLE page_cursors(
            scope TEXT NOT NULL, list TEXT NOT NULL, after TEXT NOT NULL, next TEXT, has_more INTEGER NOT NULL,
            total INTEGER, fetched_at REAL NOT NULL, PRIMARY KEY(scope, list, after));
        CREATE TABLE current_conversation(scope TEXT PRIMARY KEY, conversation_id TEXT NOT NULL);
        CREATE TABLE outbox(
            scope TEXT NOT NULL, client_message_id TEXT NOT NULL, conversation_id TEXT, text TEXT NOT NULL,
            created_at REAL NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT,
            PRIMARY KEY(scope, client_message_id));
        CREATE INDEX outbox_by_age ON outbox(scope, state, created_at);
        """,
        // 2: replies being streamed (a reply the app was killed or suspended in is completed later).
        """
        CREATE TABLE replies_in_flight(
            scope TEXT NOT NULL, message_id TEXT NOT NULL, conversation_id TEXT NOT NULL, client_message_id TEXT,
            user_text TEXT, started_at REAL NOT NULL, PRIMARY KEY(scope, message_id));
        """,
        // 3: a reply cut by a server restart stays marked as such (``Message/isInterrupted``).
        "ALTER TABLE messages ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;",
        // 4: messages of the same second keep the server's order (HistoryStore+Messages).
        """
        ALTER TABLE messages ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
        UPDATE messages SET seq = rowid;
        DROP INDEX messages_by_time;
        CREATE INDEX messages_in_order ON messages(scope, conversation_id, created_at, seq);
        """,
    ]
}
