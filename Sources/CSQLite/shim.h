// A thin shim over SQLite for Swift (Debian's libsqlite3-dev; every Apple SDK ships the library).
//
// `SQLITE_TRANSIENT` is a macro casting -1 to a destructor pointer, which Swift cannot import;
// the inline functions below bind text and blobs with it, so SQLite copies the bytes at once.
#ifndef CHATSTREAM_CSQLITE_SHIM_H
#define CHATSTREAM_CSQLITE_SHIM_H

#include <sqlite3.h>

/// Binds UTF-8 text that SQLite copies before returning.
static inline int chatstream_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/// Binds bytes that SQLite copies before returning.
static inline int chatstream_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
