// libcrypto's HMAC through pointers resolved at first use (see include/CCrypto.h for why).
#ifdef __linux__
#include "CCrypto.h"

#include <dlfcn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <string.h>

// No debug information for this file: valgrind 3.19 (Debian 12) stops reading a binary that holds
// more than one DWARF 5 compile unit from C, which would end the bench's callgrind profiles.
// So: every function and variable is `nodebug`, strings are arrays, pointers are copied rather than
// cast, and a null pointer is written 0 (NULL is a cast): a cast or a string literal would emit debug
// information even inside a `nodebug` function.
#define QUIET __attribute__((nodebug))

/// Names and messages as arrays, not string literals, so they carry no debug information.
QUIET static const char library_name[] = "libcrypto.so.3";
QUIET static const char library_fallback[] = "libcrypto.so";
QUIET static const char name_sha256[] = "EVP_sha256";
QUIET static const char name_hmac[] = "HMAC";
QUIET static const char name_memcmp[] = "CRYPTO_memcmp";
QUIET static const char not_loaded[] = "libcrypto was not loaded";
QUIET static const char not_found[] = "libcrypto.so.3 could not be opened (on Debian or Ubuntu: apt-get install libssl3)";
QUIET static const char too_old[] = "libcrypto lacks EVP_sha256, HMAC or CRYPTO_memcmp";

QUIET static struct {
    const EVP_MD *(*sha256)(void);
    unsigned char *(*hmac)(const EVP_MD *, const void *, int, const unsigned char *, size_t, unsigned char *, unsigned int *);
    int (*memcmp)(const void *, const void *, size_t);
} crypto;

QUIET static pthread_once_t once = PTHREAD_ONCE_INIT;
QUIET static const char *failure = not_loaded;
QUIET static int ready = 0;

QUIET static void load(void) {
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == 0) library = dlopen(library_fallback, RTLD_NOW | RTLD_LOCAL);
    if (library == 0) {
        failure = not_found;
        return;
    }
    // Copied, not cast, into each pointer (a cast would emit debug information).
    void *sha256 = dlsym(library, name_sha256), *hmac = dlsym(library, name_hmac), *compare = dlsym(library, name_memcmp);
    if (sha256 == 0 || hmac == 0 || compare == 0) {
        failure = too_old;
        return;
    }
    memcpy(&crypto.sha256, &sha256, sizeof sha256);
    memcpy(&crypto.hmac, &hmac, sizeof hmac);
    memcpy(&crypto.memcmp, &compare, sizeof compare);
    ready = 1;
}

QUIET const char *chatstream_crypto_load(void) {
    pthread_once(&once, load);
    return ready ? 0 : failure;
}

QUIET int chatstream_hmac_sha256(
    const unsigned char *key, size_t key_length, const unsigned char *data, size_t data_length, unsigned char *out) {
    if (chatstream_crypto_load() != 0) return 0;
    if (key_length > 0x7fffffff) return 0;
    int signed_key_length = key_length;
    unsigned int length = 32;
    return crypto.hmac(crypto.sha256(), key, signed_key_length, data, data_length, out, &length) != 0 && length == 32;
}

QUIET int chatstream_equal_constant_time(const void *a, const void *b, size_t length) {
    if (chatstream_crypto_load() != 0) return -1;
    return crypto.memcmp(a, b, length) == 0;
}
#endif
