// The libcurl functions ChatStream and FoundationNetworking call, as trampolines into libcurl.so.4
// opened at first use (include/CCurl.h says why). Each resolves the library's own function once
// (dlsym on the library's handle, so never this file's trampoline) and calls it.
#ifdef __linux__
#define CURL_DISABLE_TYPECHECK 1
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

// No debug information for this file: valgrind 3.19 (Debian 12) stops reading a binary that holds
// more than one DWARF 5 compile unit from C, which would end the bench's callgrind profiles.
// So: every function and variable is `nodebug`, strings are arrays, pointers are copied rather than
// cast, and a null pointer is written 0 (NULL is a cast): a cast or a string literal would emit debug
// information even inside a `nodebug` function.
#define QUIET __attribute__((nodebug))

// The functions: return type, name, parameters, arguments, what to answer without the library.
#define CHATSTREAM_CURL_FUNCTIONS(X)                                                                  \
    X(CURLcode, curl_global_init, (long flags), (flags), CURLE_FAILED_INIT)                            \
    X(char *, curl_version, (void), (), 0)                                                          \
    X(curl_version_info_data *, curl_version_info, (CURLversion age), (age), 0)                     \
    X(void, curl_free, (void *p), (p), )                                                               \
    X(CURL *, curl_easy_init, (void), (), 0)                                                        \
    X(void, curl_easy_cleanup, (CURL * handle), (handle), )                                            \
    X(CURLcode, curl_easy_pause, (CURL * handle, int bitmask), (handle, bitmask), CURLE_FAILED_INIT)   \
    X(const char *, curl_easy_strerror, (CURLcode code), (code), failure)                              \
    X(struct curl_slist *, curl_slist_append, (struct curl_slist * list, const char *data),            \
      (list, data), 0)                                                                              \
    X(void, curl_slist_free_all, (struct curl_slist * list), (list), )                                 \
    X(CURLM *, curl_multi_init, (void), (), 0)                                                      \
    X(CURLMcode, curl_multi_cleanup, (CURLM * multi), (multi), CURLM_INTERNAL_ERROR)                   \
    X(CURLMcode, curl_multi_add_handle, (CURLM * multi, CURL * handle), (multi, handle),               \
      CURLM_INTERNAL_ERROR)                                                                            \
    X(CURLMcode, curl_multi_remove_handle, (CURLM * multi, CURL * handle), (multi, handle),            \
      CURLM_INTERNAL_ERROR)                                                                            \
    X(CURLMcode, curl_multi_assign, (CURLM * multi, curl_socket_t socket, void *context),              \
      (multi, socket, context), CURLM_INTERNAL_ERROR)                                                  \
    X(CURLMcode, curl_multi_socket_action, (CURLM * multi, curl_socket_t socket, int events, int *running), \
      (multi, socket, events, running), CURLM_INTERNAL_ERROR)                                          \
    X(CURLMcode, curl_multi_perform, (CURLM * multi, int *running), (multi, running), CURLM_INTERNAL_ERROR) \
    X(CURLMcode, curl_multi_timeout, (CURLM * multi, long *milliseconds), (multi, milliseconds),       \
      CURLM_INTERNAL_ERROR)                                                                            \
    X(CURLMcode, curl_multi_poll,                                                                      \
      (CURLM * multi, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready),        \
      (multi, extra, count, timeout, ready), CURLM_INTERNAL_ERROR)                                     \
    X(CURLMcode, curl_multi_wakeup, (CURLM * multi), (multi), CURLM_INTERNAL_ERROR)                    \
    X(CURLMsg *, curl_multi_info_read, (CURLM * multi, int *left), (multi, left), 0)                \
    X(CURLU *, curl_url, (void), (), 0)                                                             \
    X(void, curl_url_cleanup, (CURLU * handle), (handle), )                                            \
    X(CURLUcode, curl_url_get, (CURLU * handle, CURLUPart what, char **part, unsigned int flags),      \
      (handle, what, part, flags), CURLUE_OUT_OF_MEMORY)                                               \
    X(CURLUcode, curl_url_set, (CURLU * handle, CURLUPart what, const char *part, unsigned int flags), \
      (handle, what, part, flags), CURLUE_OUT_OF_MEMORY)

/// The functions' names, for dlsym (arrays, not string literals, so they carry no debug information).
#define NAME(type, name, parameters, arguments, fallback) QUIET static const char name_##name[] = #name;
CHATSTREAM_CURL_FUNCTIONS(NAME)
NAME(, curl_easy_setopt, , , )
NAME(, curl_easy_getinfo, , , )
NAME(, curl_multi_setopt, , , )
#undef NAME

/// Why the library is not ready (each message an array, for the same reason as the names).
QUIET static const char not_loaded[] = "libcurl was not loaded";
QUIET static const char not_found[] = "libcurl.so.4 could not be opened (on Debian or Ubuntu: apt-get install libcurl4)";
QUIET static const char too_old[] = "libcurl.so.4 lacks a function ChatStream calls (libcurl 7.68 or later is needed)";
QUIET static const char init_failed[] = "curl_global_init failed";
QUIET static const char library_name[] = "libcurl.so.4";
QUIET static const char library_fallback[] = "libcurl.so";

/// The library's own functions, filled by `load` before `ready` is set.
QUIET static struct {
#define FIELD(type, name, parameters, arguments, fallback) type(*name) parameters;
    CHATSTREAM_CURL_FUNCTIONS(FIELD)
#undef FIELD
    CURLcode (*curl_easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*curl_easy_getinfo)(CURL *, CURLINFO, ...);
    CURLMcode (*curl_multi_setopt)(CURLM *, CURLMoption, ...);
} real;

_Static_assert(__SIZEOF_POINTER__ == 8, "the variadic trampolines assume a 64-bit ABI");

QUIET static pthread_once_t once = PTHREAD_ONCE_INIT;
/// Set (release) once every pointer of `real` is filled; read (acquire) by every trampoline.
QUIET static atomic_int ready;
QUIET static const char *failure = not_loaded;

QUIET static void load(void) {
    // RTLD_LAZY: libcurl and the libraries it brings (TLS, HTTP/2, IDN, SSH, LDAP...) bind a
    // function at its first call, so a plain-HTTP request does not pay for binding every TLS and
    // protocol function up front. The functions called from here are looked up with dlsym below.
    void *library = dlopen(library_name, RTLD_LAZY | RTLD_LOCAL);
    if (library == 0) library = dlopen(library_fallback, RTLD_LAZY | RTLD_LOCAL);
    if (library == 0) {
        failure = not_found;
        return;
    }
    void *symbol;  // copied, not cast, into each pointer (a cast would emit debug information)
#define RESOLVE(type, name, parameters, arguments, fallback)                                          \
    symbol = dlsym(library, name_##name);                                                             \
    if (symbol == 0) {                                                                             \
        failure = too_old;                                                                            \
        return;                                                                                       \
    }                                                                                                 \
    memcpy(&real.name, &symbol, sizeof symbol);
    CHATSTREAM_CURL_FUNCTIONS(RESOLVE)
    RESOLVE(, curl_easy_setopt, , , )
    RESOLVE(, curl_easy_getinfo, , , )
    RESOLVE(, curl_multi_setopt, , , )
#undef RESOLVE
    // Ready before the global initialisation, which may itself call a libcurl function (through
    // these trampolines, since the executable's definitions come first in symbol lookup).
    atomic_store_explicit(&ready, 1, memory_order_release);
    if (real.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        failure = init_failed;
        atomic_store_explicit(&ready, 0, memory_order_release);
    }
}

/// Whether the library is loaded (loading it on first call).
QUIET static inline int loaded(void) {
    if (atomic_load_explicit(&ready, memory_order_acquire)) return 1;
    pthread_once(&once, load);
    return atomic_load_explicit(&ready, memory_order_acquire);
}

QUIET const char *chatstream_curl_load(void) { return loaded() ? 0 : failure; }

#define TRAMPOLINE(type, name, parameters, arguments, fallback)                                       \
    QUIET type name parameters {                                                                      \
        if (!loaded()) return fallback;                                                               \
        return real.name arguments;                                                                   \
    }
CHATSTREAM_CURL_FUNCTIONS(TRAMPOLINE)
#undef TRAMPOLINE

// The variadic three take exactly one more argument: a long, a curl_off_t, a pointer or a
// function pointer, each passed in one general-purpose register or stack slot on the 64-bit
// Linux ABIs (x86-64 System V, AArch64), so it is forwarded as a pointer-sized value.
QUIET CURLcode curl_easy_setopt(CURL *handle, CURLoption option, ...) {
    if (!loaded()) return CURLE_FAILED_INIT;
    va_list list;
    va_start(list, option);
    void *value = va_arg(list, void *);
    va_end(list);
    return real.curl_easy_setopt(handle, option, value);
}

QUIET CURLcode curl_easy_getinfo(CURL *handle, CURLINFO info, ...) {
    if (!loaded()) return CURLE_FAILED_INIT;
    va_list list;
    va_start(list, info);
    void *out = va_arg(list, void *);
    va_end(list);
    return real.curl_easy_getinfo(handle, info, out);
}

QUIET CURLMcode curl_multi_setopt(CURLM *multi, CURLMoption option, ...) {
    if (!loaded()) return CURLM_INTERNAL_ERROR;
    va_list list;
    va_start(list, option);
    void *value = va_arg(list, void *);
    va_end(list);
    return real.curl_multi_setopt(multi, option, value);
}
#endif
