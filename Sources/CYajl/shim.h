// A thin shim over libyajl for Swift.
//
// yajl's `yajl_config` is variadic, which Swift cannot call; the inline
// functions below wrap the few options ChatStream sets.
#ifndef CHATSTREAM_CYAJL_SHIM_H
#define CHATSTREAM_CYAJL_SHIM_H

#include <yajl/yajl_parse.h>

/// Lets one handle parse a stream of values, one after another.
static inline int chatstream_yajl_allow_multiple_values(yajl_handle handle) {
    return yajl_config(handle, yajl_allow_multiple_values, 1);
}

/// Accepts bytes after the end of the value (used only by benchmarks).
static inline int chatstream_yajl_allow_trailing_garbage(yajl_handle handle) {
    return yajl_config(handle, yajl_allow_trailing_garbage, 1);
}

/// Turns off yajl's own UTF-8 check (used only by benchmarks).
static inline int chatstream_yajl_dont_validate_strings(yajl_handle handle) {
    return yajl_config(handle, yajl_dont_validate_strings, 1);
}

#endif
