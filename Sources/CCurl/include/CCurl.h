// libcurl for Swift on Linux (CurlTransport, and FoundationNetworking's URLSession), loaded when
// the first request needs it.
//
// Why: linking libcurl made the dynamic loader bind its whole dependency tree (TLS, Kerberos, LDAP,
// SSH, IDN...) at the start of every process that links ChatStreamClient, about 12 million
// instructions and most of a short command's start-up (`chatstream replay`), even when the command
// makes no request. So CCurl.c defines the libcurl functions ChatStream and FoundationNetworking
// call, each a trampoline that opens libcurl.so.4 with dlopen on first use and calls the library's
// own function through a pointer resolved once. A program linked statically (the CLI,
// scripts/chatstream.sh) then needs no libcurl at start; linked dynamically, FoundationNetworking
// still brings libcurl, and the trampolines lead to that same library.
//
// Example (what CurlTransport does before its first transfer):
//
//     const char *reason = chatstream_curl_load();   // NULL: loaded; else why not
//     if (reason == NULL) { CURL *easy = curl_easy_init(); ... }
//
// `curl_easy_setopt` and `curl_easy_getinfo` are variadic, which Swift cannot call, and a few of
// libcurl's constants are macros Swift does not import; the inline functions below wrap what
// ChatStream uses, each with one argument type.
#ifndef CHATSTREAM_CCURL_H
#define CHATSTREAM_CCURL_H

#ifdef __linux__
#include <curl/curl.h>

/// Opens libcurl (libcurl.so.4) once and runs `curl_global_init(CURL_GLOBAL_DEFAULT)`; returns NULL
/// when it is ready, else why not (a static string naming the library and the package to install).
/// Safe from any thread, any number of times. Every libcurl function calls it first; before it
/// succeeds they answer CURLE_FAILED_INIT, CURLM_INTERNAL_ERROR or NULL.
const char *chatstream_curl_load(void);

/// The write and header callbacks' type: `size_t callback(char *bytes, size_t size, size_t count, void *context)`.
typedef size_t (*chatstream_curl_data_callback)(char *, size_t, size_t, void *);

/// Sets an option that takes a `long`.
static inline CURLcode chatstream_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets an option that takes a `curl_off_t`.
static inline CURLcode chatstream_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets an option that takes a C string (libcurl copies strings, except `CURLOPT_POSTFIELDS`).
static inline CURLcode chatstream_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets an option that takes a pointer (context pointers, the error buffer, header lists).
static inline CURLcode chatstream_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets `CURLOPT_WRITEFUNCTION` or `CURLOPT_HEADERFUNCTION`.
static inline CURLcode chatstream_curl_set_callback(
    CURL *handle, CURLoption option, chatstream_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// The response code of the last response (`CURLINFO_RESPONSE_CODE`).
static inline long chatstream_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

/// What a write callback returns to pause receiving (`CURL_WRITEFUNC_PAUSE`).
static inline size_t chatstream_curl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }

/// `curl_easy_pause`'s argument that resumes both directions (`CURLPAUSE_CONT`).
static inline int chatstream_curl_pause_continue(void) { return CURLPAUSE_CONT; }

/// `curl_global_init(CURL_GLOBAL_DEFAULT)`.
static inline CURLcode chatstream_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

/// The size `CURLOPT_ERRORBUFFER` needs (`CURL_ERROR_SIZE`).
static inline int chatstream_curl_error_size(void) { return CURL_ERROR_SIZE; }

/// The result code of a finished transfer in a `CURLMSG_DONE` message.
static inline CURLcode chatstream_curl_message_result(CURLMsg *message) { return message->data.result; }

#endif

#endif
