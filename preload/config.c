/* TIER_PRELOAD_* parsing. Pure functions over strings (no getenv, no
 * allocation) so the unit tests drive them directly; an error leaves the
 * config OFF (plain glibc) with one message for the constructor to print. */
#include <string.h>

#include "tier/values/value_scan.h"
#include "tp_internal.h"

int tp_mask_count(const tp_nodemask* m) {
  int n = 0;
  for (size_t i = 0; i < TP_MASK_WORDS; ++i) n += __builtin_popcountl(m->w[i]);
  return n;
}

int tp_mask_first(const tp_nodemask* m) {
  for (size_t i = 0; i < TP_MASK_WORDS; ++i) {
    if (m->w[i] != 0) return (int)(i * 8 * sizeof(unsigned long)) + __builtin_ctzl(m->w[i]);
  }
  return -1;
}

/* Sizes and counts are scanned by the value grammar's C core
 * (libtier/src/values/value_scan.c, compiled into this library), so
 * TIER_PRELOAD_THRESHOLD reads sizes as tierctl and tierd do. */
int tp_parse_size(const char* s, const char* end, size_t* out) {
  uint64_t v;
  if (tier_scan_size(s, end, &v) != 0) return -1;
#if SIZE_MAX < UINT64_MAX
  if (v > SIZE_MAX) return -1; /* a 32-bit size_t */
#endif
  *out = (size_t)v;
  return 0;
}

static const char* find_char(const char* s, const char* end, char c) {
  while (s < end && *s != c) ++s;
  return s;
}

static int parse_node(const char* s, const char* end, int* node) {
  uint64_t v;
  if (tier_scan_u64(s, end, &v) != 0 || v >= TP_MAX_NODES) return -1;
  *node = (int)v;
  return 0;
}

int tp_parse_nodelist(const char* s, const char* end, tp_nodemask* out) {
  memset(out, 0, sizeof *out);
  while (end > s && (end[-1] == '\n' || end[-1] == ' ')) --end; /* sysfs newline */
  if (s == end) return -1;
  while (s < end) {
    const char* comma = find_char(s, end, ',');
    const char* dash = find_char(s, comma, '-');
    int lo, hi;
    if (parse_node(s, dash, &lo) != 0) return -1;
    hi = lo;
    if (dash < comma && parse_node(dash + 1, comma, &hi) != 0) return -1;
    if (hi < lo) return -1;
    for (int n = lo; n <= hi; ++n) tp_mask_set(out, n);
    s = comma < end ? comma + 1 : end;
    if (comma + 1 == end) return -1; /* trailing comma */
  }
  return 0;
}

/* weighted:N=W,M=W */
static int parse_weights(const char* s, const char* end, struct tp_config* cfg) {
  if (s == end) return -1;
  while (s < end) {
    const char* comma = find_char(s, end, ',');
    const char* eq = find_char(s, comma, '=');
    int node;
    uint64_t w;
    if (eq == comma || parse_node(s, eq, &node) != 0) return -1;
    if (tier_scan_u64(eq + 1, comma, &w) != 0 || w == 0 || w > 1000) return -1;
    if (tp_mask_test(&cfg->nodes, node)) return -1; /* named twice */
    if (tp_mask_count(&cfg->nodes) == TP_MAX_STRIPE) return -1;
    tp_mask_set(&cfg->nodes, node);
    cfg->weights[node] = (unsigned short)w;
    if (comma + 1 == end) return -1;
    s = comma < end ? comma + 1 : end;
  }
  return 0;
}

static int has_prefix(const char* s, const char* prefix, const char** rest) {
  size_t n = strlen(prefix);
  if (strncmp(s, prefix, n) != 0) return 0;
  *rest = s + n;
  return 1;
}

static int parse_policy(const char* p, struct tp_config* cfg) {
  const char* end = p + strlen(p);
  const char* rest;
  if (strcmp(p, "local") == 0)
    cfg->mode = TP_MODE_LOCAL;
  else if (strcmp(p, "fast") == 0)
    cfg->mode = TP_MODE_FAST;
  else if (strcmp(p, "slow") == 0)
    cfg->mode = TP_MODE_SLOW;
  else if (strcmp(p, "auto") == 0)
    cfg->mode = TP_MODE_AUTO;
  else if (has_prefix(p, "nodes:", &rest)) {
    cfg->mode = TP_MODE_NODES;
    return tp_parse_nodelist(rest, end, &cfg->nodes);
  } else if (has_prefix(p, "interleave:", &rest)) {
    cfg->mode = TP_MODE_INTERLEAVE;
    return tp_parse_nodelist(rest, end, &cfg->nodes);
  } else if (has_prefix(p, "preferred-many:", &rest)) {
    cfg->mode = TP_MODE_PREFERRED_MANY;
    return tp_parse_nodelist(rest, end, &cfg->nodes);
  } else if (has_prefix(p, "weighted:", &rest)) {
    cfg->mode = TP_MODE_WEIGHTED;
    return parse_weights(rest, end, cfg);
  } else if (has_prefix(p, "ratio:", &rest)) {
    const char* colon = find_char(rest, end, ':');
    uint64_t f, s;
    if (colon == end || tier_scan_u64(rest, colon, &f) != 0 ||
        tier_scan_u64(colon + 1, end, &s) != 0)
      return -1;
    if (f + s == 0 || f > 1000000 || s > 1000000) return -1;
    cfg->mode = TP_MODE_RATIO;
    cfg->ratio_fast = (unsigned)f;
    cfg->ratio_slow = (unsigned)s;
  } else {
    return -1;
  }
  return 0;
}

/* "SIZE" or "MIN:MAX" (MAX empty = no upper bound). */
static int parse_threshold(const char* t, struct tp_config* cfg) {
  const char* end = t + strlen(t);
  const char* colon = find_char(t, end, ':');
  if (tp_parse_size(t, colon, &cfg->min_size) != 0) return -1;
  cfg->max_size = SIZE_MAX;
  if (colon < end && colon + 1 < end && tp_parse_size(colon + 1, end, &cfg->max_size) != 0)
    return -1;
  return cfg->max_size >= cfg->min_size ? 0 : -1;
}

static int fail(struct tp_config* cfg, char* err, size_t err_len, const char* var,
                const char* value, const char* why) {
  err[0] = '\0';
  tp_str_append(err, err_len, var);
  tp_str_append(err, err_len, "='");
  tp_str_append(err, err_len, value);
  tp_str_append(err, err_len, "': ");
  tp_str_append(err, err_len, why);
  cfg->mode = TP_MODE_OFF;
  return -1;
}

int tp_parse_config(const char* policy, const char* threshold, const char* strict, const char* log,
                    const char* stats, struct tp_config* cfg, char* err, size_t err_len) {
  memset(cfg, 0, sizeof *cfg);
  cfg->strict = TP_STRICT_ADVISORY;
  cfg->min_size = (size_t)1 << 20;
  cfg->max_size = SIZE_MAX;
  err[0] = '\0';
  if (policy == NULL || *policy == '\0') {
    cfg->mode = TP_MODE_OFF; /* loaded without a policy: plain glibc, silently */
    return 0;
  }
  tp_str_append(cfg->policy_text, sizeof cfg->policy_text, policy);
  if (parse_policy(policy, cfg) != 0) {
    return fail(cfg, err, err_len, "TIER_PRELOAD_POLICY", policy,
                "expected local|fast|slow|auto|nodes:LIST|interleave:LIST|"
                "preferred-many:LIST|weighted:N=W,...|ratio:FAST:SLOW");
  }
  if (threshold != NULL && *threshold != '\0' && parse_threshold(threshold, cfg) != 0) {
    return fail(cfg, err, err_len, "TIER_PRELOAD_THRESHOLD", threshold,
                "expected SIZE or MIN:MAX (K/M/G/T or KiB/MiB/GiB/TiB suffixes, MIN <= MAX)");
  }
  if (strict != NULL && *strict != '\0') {
    if (strcmp(strict, "none") == 0)
      cfg->strict = TP_STRICT_NONE;
    else if (strcmp(strict, "advisory") == 0)
      cfg->strict = TP_STRICT_ADVISORY;
    else if (strcmp(strict, "strict") == 0)
      cfg->strict = TP_STRICT_STRICT;
    else
      return fail(cfg, err, err_len, "TIER_PRELOAD_STRICT", strict,
                  "expected none|advisory|strict");
  }
  if (log != NULL && *log != '\0' && strcmp(log, "0") != 0) {
    if (strcmp(log, "1") == 0 || strcmp(log, "stderr") == 0)
      cfg->log_stderr = 1;
    else if (strlen(log) >= sizeof cfg->log_path)
      return fail(cfg, err, err_len, "TIER_PRELOAD_LOG", log, "path too long");
    else
      tp_str_append(cfg->log_path, sizeof cfg->log_path, log);
  }
  if (stats != NULL && *stats != '\0') {
    if (strlen(stats) >= sizeof cfg->stats_path)
      return fail(cfg, err, err_len, "TIER_PRELOAD_STATS", stats, "path too long");
    tp_str_append(cfg->stats_path, sizeof cfg->stats_path, stats);
  }
  return 0;
}
