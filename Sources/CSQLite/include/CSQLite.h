// SQLite for Swift: the functions ChatStream's store calls, each as `chatstream_sqlite3_NAME`.
//
// Why the names: on Linux the library (Debian's libsqlite3, headers from libsqlite3-dev) is opened
// with dlopen at the first database a process opens instead of being linked, so a command that never
// touches a store (`chatstream replay`, a client without history) does not pay for the dynamic
// loader binding SQLite at start (about 1,600 symbol lookups). CSQLite.c defines each function as a
// trampoline that loads the library once and calls its own function. The prefix keeps those
// definitions from clashing with an app's own copy of SQLite (a static amalgamation, or another
// library's). The CLI and bench of scripts/build-cli.sh link Debian's libsqlite3.a instead
// (CHATSTREAM_SQLITE_LINKED): nothing is opened, and the trampolines call the linked functions.
// On Apple platforms, whose SDKs ship SQLite, each name is an inline call of the library's
// function, linked as usual.
//
// Example (what SQLiteDatabase does):
//
//     const char *reason = chatstream_sqlite3_load();   // NULL: ready; else why not
//     sqlite3 *db;
//     if (reason == NULL && chatstream_sqlite3_open_v2(path, &db, flags, NULL) == SQLITE_OK) { ... }
#ifndef CHATSTREAM_CSQLITE_H
#define CHATSTREAM_CSQLITE_H

#include <sqlite3.h>

/// The functions: return type, name, parameters, arguments, what to answer without the library.
#define CHATSTREAM_SQLITE_FUNCTIONS(X)                                                                  \
    X(int, open_v2, (const char *path, sqlite3 **db, int flags, const char *vfs), (path, db, flags, vfs), \
      SQLITE_CANTOPEN)                                                                                   \
    X(int, close, (sqlite3 * db), (db), SQLITE_OK)                                                       \
    X(int, close_v2, (sqlite3 * db), (db), SQLITE_OK)                                                    \
    X(const char *, errmsg, (sqlite3 * db), (db), 0)                                                     \
    X(const char *, errstr, (int code), (code), 0)                                                       \
    X(int, extended_result_codes, (sqlite3 * db, int on), (db, on), SQLITE_MISUSE)                       \
    X(int, busy_timeout, (sqlite3 * db, int milliseconds), (db, milliseconds), SQLITE_MISUSE)            \
    X(int, exec, (sqlite3 * db, const char *sql, int (*callback)(void *, int, char **, char **),          \
                  void *context, char **error), (db, sql, callback, context, error), SQLITE_MISUSE)      \
    X(int, changes, (sqlite3 * db), (db), 0)                                                             \
    X(sqlite3_int64, last_insert_rowid, (sqlite3 * db), (db), 0)                                         \
    X(int, get_autocommit, (sqlite3 * db), (db), 0)                                                      \
    X(int, db_readonly, (sqlite3 * db, const char *name), (db, name), -1)                                \
    X(void, free, (void *pointer), (pointer), )                                                          \
    X(int, prepare_v3, (sqlite3 * db, const char *sql, int length, unsigned int flags,                    \
                        sqlite3_stmt **statement, const char **tail),                                    \
      (db, sql, length, flags, statement, tail), SQLITE_MISUSE)                                          \
    X(int, step, (sqlite3_stmt * statement), (statement), SQLITE_MISUSE)                                 \
    X(int, reset, (sqlite3_stmt * statement), (statement), SQLITE_MISUSE)                                \
    X(int, clear_bindings, (sqlite3_stmt * statement), (statement), SQLITE_MISUSE)                       \
    X(int, bind_parameter_count, (sqlite3_stmt * statement), (statement), 0)                             \
    X(int, finalize, (sqlite3_stmt * statement), (statement), SQLITE_OK)                                 \
    X(int, bind_null, (sqlite3_stmt * statement, int index), (statement, index), SQLITE_MISUSE)          \
    X(int, bind_int64, (sqlite3_stmt * statement, int index, sqlite3_int64 value), (statement, index, value), \
      SQLITE_MISUSE)                                                                                     \
    X(int, bind_double, (sqlite3_stmt * statement, int index, double value), (statement, index, value),  \
      SQLITE_MISUSE)                                                                                     \
    X(int, bind_zeroblob, (sqlite3_stmt * statement, int index, int length), (statement, index, length), \
      SQLITE_MISUSE)                                                                                     \
    X(int, bind_text, (sqlite3_stmt * statement, int index, const char *text, int length,                 \
                       void (*destructor)(void *)), (statement, index, text, length, destructor),        \
      SQLITE_MISUSE)                                                                                     \
    X(int, bind_blob, (sqlite3_stmt * statement, int index, const void *bytes, int length,                \
                       void (*destructor)(void *)), (statement, index, bytes, length, destructor),       \
      SQLITE_MISUSE)                                                                                     \
    X(int, column_type, (sqlite3_stmt * statement, int column), (statement, column), SQLITE_NULL)        \
    X(sqlite3_int64, column_int64, (sqlite3_stmt * statement, int column), (statement, column), 0)       \
    X(double, column_double, (sqlite3_stmt * statement, int column), (statement, column), 0)             \
    X(const unsigned char *, column_text, (sqlite3_stmt * statement, int column), (statement, column), 0) \
    X(const void *, column_blob, (sqlite3_stmt * statement, int column), (statement, column), 0)         \
    X(int, column_bytes, (sqlite3_stmt * statement, int column), (statement, column), 0)                 \
    X(void *, wal_hook, (sqlite3 * db, int (*callback)(void *, sqlite3 *, const char *, int), void *argument), \
      (db, callback, argument), 0)

#ifdef __linux__
/// Opens SQLite (libsqlite3.so.0) once; returns NULL when it is ready, else why not (a static
/// string naming the library and the package to install). Safe from any thread, any number of
/// times. Every function below calls it first; before it succeeds they answer the fallback in the
/// list above (`open_v2` answers SQLITE_CANTOPEN).
const char *chatstream_sqlite3_load(void);

#define CHATSTREAM_SQLITE_DECLARE(type, name, parameters, arguments, fallback) type chatstream_sqlite3_##name parameters;
CHATSTREAM_SQLITE_FUNCTIONS(CHATSTREAM_SQLITE_DECLARE)
#undef CHATSTREAM_SQLITE_DECLARE
#else
/// The library is linked: always ready.
static inline const char *chatstream_sqlite3_load(void) { return 0; }

#define CHATSTREAM_SQLITE_INLINE(type, name, parameters, arguments, fallback)                          \
    static inline type chatstream_sqlite3_##name parameters { return sqlite3_##name arguments; }
CHATSTREAM_SQLITE_FUNCTIONS(CHATSTREAM_SQLITE_INLINE)
#undef CHATSTREAM_SQLITE_INLINE
#endif

/// Binds UTF-8 text that SQLite copies before returning (`SQLITE_TRANSIENT` is a macro casting -1
/// to a destructor pointer, which Swift cannot import).
static inline int chatstream_sqlite3_bind_transient_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return chatstream_sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/// Binds bytes that SQLite copies before returning.
static inline int chatstream_sqlite3_bind_transient_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return chatstream_sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

/// Stores the log's size in pages into `*pages` after each commit of `db` (a write-ahead log hook,
/// which replaces SQLite's automatic checkpoint: only for a connection that has it off).
static inline int chatstream_sqlite3_log_pages_hook(void *pages, sqlite3 *db, const char *name, int count) {
    (void)db;
    (void)name;
    *(int *)pages = count;
    return SQLITE_OK;
}

/// Counts the log's pages after each commit of `db` in `*pages` (which must outlive the connection).
static inline void chatstream_sqlite3_count_log_pages(sqlite3 *db, int *pages) {
    chatstream_sqlite3_wal_hook(db, chatstream_sqlite3_log_pages_hook, pages);
}

#endif
