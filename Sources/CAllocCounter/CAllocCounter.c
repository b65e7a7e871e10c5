// Counting wrappers over glibc's allocator; see include/CAllocCounter.h.
#include "CAllocCounter.h"

#include <errno.h>
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static uint64_t allocations = 0;
static uint64_t frees = 0;

static inline void counted(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) {
    counted();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    counted();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (size != 0) counted();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer != NULL) __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    counted();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    counted();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    counted();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

uint64_t chatstream_alloc_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
uint64_t chatstream_free_count(void) { return __atomic_load_n(&frees, __ATOMIC_RELAXED); }

int chatstream_alloc_counter_active(void) {
    uint64_t before = chatstream_alloc_count();
    void *volatile probe = malloc(24);
    free(probe);
    return chatstream_alloc_count() != before;
}

#else

uint64_t chatstream_alloc_count(void) { return 0; }
uint64_t chatstream_free_count(void) { return 0; }
int chatstream_alloc_counter_active(void) { return 0; }

#endif
