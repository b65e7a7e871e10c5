// OpenSSL's libcrypto for Swift on Linux: only HMAC-SHA256 (one call) and a constant-time compare.
// Apple platforms use CryptoKit instead (see HMACSHA256.swift).
#ifndef CHATSTREAM_CCRYPTO_SHIM_H
#define CHATSTREAM_CCRYPTO_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

/// HMAC-SHA256 of `data` under `key` into `out` (32 bytes); returns 1 on success.
static inline int chatstream_hmac_sha256(
    const unsigned char *key, size_t key_length, const unsigned char *data, size_t data_length, unsigned char *out) {
    unsigned int length = 32;
    return HMAC(EVP_sha256(), key, (int)key_length, data, data_length, out, &length) != NULL && length == 32;
}

/// Whether two buffers of `length` bytes are equal, in time independent of where they differ.
static inline int chatstream_equal_constant_time(const void *a, const void *b, size_t length) {
    return CRYPTO_memcmp(a, b, length) == 0;
}

#endif
