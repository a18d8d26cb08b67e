/* The scanning core of tier's value grammar, in C with no allocation and no
 * libc state, so the preload library (which may run before malloc works)
 * compiles the same file as libtier's C++ parsers (tier/values/values.hpp).
 * Each scanner reads exactly [s, end) and returns 0, or -1 for empty text,
 * a character out of the grammar, or overflow; it never reads past end. */
#ifndef TIER_VALUES_VALUE_SCAN_H
#define TIER_VALUES_VALUE_SCAN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Decimal digits only ("0", "4096"), no sign, no spaces. */
int tier_scan_u64(const char* s, const char* end, uint64_t* out);

/* Digits with an optional binary suffix K, M, G or T (also KiB, MiB, GiB,
 * TiB; case-insensitive; 1K = 1024): "4096", "64K", "16MiB". */
int tier_scan_size(const char* s, const char* end, uint64_t* out);

#ifdef __cplusplus
}
#endif

#endif
