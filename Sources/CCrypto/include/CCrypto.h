// OpenSSL's libcrypto for Swift on Linux: only HMAC-SHA256 and a constant-time compare, loaded
// when the server first needs them. Apple platforms use CryptoKit instead (see HMACSHA256.swift).
//
// The library is opened with dlopen at first use instead of being linked, so a command that never
// signs or checks a token (`chatstream replay`, a client talking to a remote server) does not pay
// for the dynamic loader binding libcrypto at start. Example:
//
//     if (chatstream_crypto_load() == NULL) { chatstream_hmac_sha256(key, 32, data, n, out); }
#ifndef CHATSTREAM_CCRYPTO_H
#define CHATSTREAM_CCRYPTO_H

#ifdef __linux__
#include <stddef.h>

/// Loads libcrypto (libcrypto.so.3) once; returns NULL when it is ready, else why not (a static
/// string). Safe to call from any thread, any number of times.
const char *chatstream_crypto_load(void);

/// HMAC-SHA256 of `data` under `key` into `out` (32 bytes); returns 1 on success, 0 on failure
/// (including a library that could not be loaded).
int chatstream_hmac_sha256(
    const unsigned char *key, size_t key_length, const unsigned char *data, size_t data_length, unsigned char *out);

/// Whether two buffers of `length` bytes are equal (1) or not (0), in time independent of where
/// they differ; -1 when the library could not be loaded.
int chatstream_equal_constant_time(const void *a, const void *b, size_t length);
#endif

#endif
