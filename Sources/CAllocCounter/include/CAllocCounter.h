// CAllocCounter: counts heap allocations for chatstream-bench.
//
// Linked only into the benchmark executable. It defines malloc, calloc, realloc, free and the
// aligned allocators; a definition in the executable wins over libc's for the whole process
// (the Swift runtime included), and each one forwards to glibc's __libc_* entry point after
// bumping a relaxed atomic counter.
#ifndef CHATSTREAM_CALLOCCOUNTER_H
#define CHATSTREAM_CALLOCCOUNTER_H

#include <stdint.h>

/// Calls to malloc, calloc, realloc (non-NULL size) and the aligned allocators so far.
uint64_t chatstream_alloc_count(void);
/// Calls to free with a non-NULL pointer so far.
uint64_t chatstream_free_count(void);
/// Whether the counting allocator is the one the process uses (a malloc call moved the counter).
int chatstream_alloc_counter_active(void);

#endif
