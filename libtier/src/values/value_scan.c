/* The scanning core of the value grammar (tier/values/value_scan.h): digits
 * and binary size suffixes, read from [s, end) only. C, no allocation, no
 * errno, no locale: the preload library compiles this file too and may call
 * it before malloc works. */
#include "tier/values/value_scan.h"

int tier_scan_u64(const char* s, const char* end, uint64_t* out) {
  if (s >= end) return -1;
  uint64_t v = 0;
  for (; s < end; ++s) {
    if (*s < '0' || *s > '9') return -1;
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

/* The shift of one suffix letter, 0 for none of K, M, G, T. */
static unsigned suffix_shift(char c) {
  switch (c) {
    case 'k':
    case 'K':
      return 10;
    case 'm':
    case 'M':
      return 20;
    case 'g':
    case 'G':
      return 30;
    case 't':
    case 'T':
      return 40;
    default:
      return 0;
  }
}

int tier_scan_size(const char* s, const char* end, uint64_t* out) {
  if (s >= end) return -1;
  /* "KiB": the letter is three from the end when the text ends in "ib". */
  const char* letter = end - 1;
  if (end - s >= 3 && (end[-2] == 'i' || end[-2] == 'I') && (end[-1] == 'b' || end[-1] == 'B')) {
    letter = end - 3;
  }
  unsigned shift = suffix_shift(*letter);
  if (shift == 0) {
    letter = end; /* bare digits; "iB" without a letter fails the digit scan */
  }
  uint64_t v;
  if (tier_scan_u64(s, letter, &v) != 0) return -1;
  if (shift != 0 && v > (UINT64_MAX >> shift)) return -1;
  *out = v << shift;
  return 0;
}
