// The SQLite functions ChatStream's store calls, as trampolines into libsqlite3.so.0 opened at
// first use (include/CSQLite.h says why). Each resolves the library's own function once (dlsym on
// the library's handle) and calls it.
#ifdef __linux__
#include "CSQLite.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

// No debug information for this file, as in CCurl.c (valgrind 3.19 stops reading a binary with
// more than one DWARF 5 compile unit from C): every function and variable is `nodebug`, strings
// are arrays, pointers are copied rather than cast, and a null pointer is written 0.
#define QUIET __attribute__((nodebug))

/// The library's functions' names, for dlsym.
#define NAME(type, name, parameters, arguments, fallback) QUIET static const char name_##name[] = "sqlite3_" #name;
CHATSTREAM_SQLITE_FUNCTIONS(NAME)
#undef NAME

QUIET static const char not_loaded[] = "SQLite was not loaded";
QUIET static const char not_found[] =
    "libsqlite3.so.0 could not be opened (on Debian or Ubuntu: apt-get install libsqlite3-0)";
QUIET static const char too_old[] = "libsqlite3.so.0 lacks a function ChatStream calls (SQLite 3.20 or later is needed)";
QUIET static const char library_name[] = "libsqlite3.so.0";
QUIET static const char library_fallback[] = "libsqlite3.so";
QUIET static const char name_config_function[] = "sqlite3_config";

/// The library's own functions, filled by `load` before `ready` is set.
QUIET static struct {
#define FIELD(type, name, parameters, arguments, fallback) type(*name) parameters;
    CHATSTREAM_SQLITE_FUNCTIONS(FIELD)
#undef FIELD
} real;

QUIET static pthread_once_t once = PTHREAD_ONCE_INIT;
/// Set (release) once every pointer of `real` is filled; read (acquire) by every trampoline.
QUIET static atomic_int ready;
QUIET static const char *failure = not_loaded;

#ifdef CHATSTREAM_SQLITE_LINKED
// SQLite linked into the binary instead: scripts/build-cli.sh links Debian's libsqlite3.a into the
// fast-start CLI and bench and defines CHATSTREAM_SQLITE_LINKED, and the trampolines call the linked
// functions. Nothing is opened or looked up at the first database (1.5 million instructions of the
// dynamic loader's in `chatstream chat`). Every other build opens the library as below.
QUIET static int take_linked(void) {
#define TAKE(type, name, parameters, arguments, fallback) real.name = sqlite3_##name;
    CHATSTREAM_SQLITE_FUNCTIONS(TAKE)
#undef TAKE
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);  // as below
    return 1;
}
#else
QUIET static int take_linked(void) { return 0; }
#endif

QUIET static void load(void) {
    if (take_linked()) {
        atomic_store_explicit(&ready, 1, memory_order_release);
        return;
    }
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == 0) library = dlopen(library_fallback, RTLD_NOW | RTLD_LOCAL);
    if (library == 0) {
        failure = not_found;
        return;
    }
    void *symbol;  // copied, not cast, into each pointer (a cast would emit debug information)
#define RESOLVE(type, name, parameters, arguments, fallback)                                          \
    symbol = dlsym(library, name_##name);                                                             \
    if (symbol == 0) {                                                                                \
        failure = too_old;                                                                            \
        return;                                                                                       \
    }                                                                                                 \
    memcpy(&real.name, &symbol, sizeof symbol);
    CHATSTREAM_SQLITE_FUNCTIONS(RESOLVE)
#undef RESOLVE
    // Memory statistics off, before the library initializes: with them on (the default), every
    // allocation and free SQLite makes takes a global mutex to count it, and ChatStream reads no
    // count. The server's store committer made about 20 such calls per statement (a streamed
    // chat's write: 22 statements). A library another part of the process already initialized
    // refuses (SQLITE_MISUSE) and keeps counting, which changes nothing else.
    symbol = dlsym(library, name_config_function);
    if (symbol != 0) {
        int (*configure)(int, ...);
        memcpy(&configure, &symbol, sizeof symbol);
        configure(SQLITE_CONFIG_MEMSTATUS, 0);
    }
    atomic_store_explicit(&ready, 1, memory_order_release);
}

/// Whether the library is loaded (loading it on first call).
QUIET static inline int loaded(void) {
    if (atomic_load_explicit(&ready, memory_order_acquire)) return 1;
    pthread_once(&once, load);
    return atomic_load_explicit(&ready, memory_order_acquire);
}

QUIET const char *chatstream_sqlite3_load(void) { return loaded() ? 0 : failure; }

#define TRAMPOLINE(type, name, parameters, arguments, fallback)                                       \
    QUIET type chatstream_sqlite3_##name parameters {                                                 \
        if (!loaded()) return fallback;                                                               \
        return real.name arguments;                                                                   \
    }
CHATSTREAM_SQLITE_FUNCTIONS(TRAMPOLINE)
#undef TRAMPOLINE
#endif
