/* The memory model of the latency plugin: see model.h. */
#include "model.h"

#include "tier/values/value_scan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char* err, size_t errlen, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- layout -------------------------------------------------------------- */

static bool parse_u64(const char* s, uint64_t* out) {
  char* end;
  if (!*s || *s == '-') return false;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static bool parse_node(const char* s, int* out) {
  uint64_t v;
  if (!parse_u64(s, &v) || v >= TM_MAX_NODES) return false;
  *out = (int)v;
  return true;
}

/* "0-1" or "2" or "0,2-3" */
static bool parse_cpu_list(const char* s, int node, struct tm_layout* layout) {
  char buf[256];
  if (strlen(s) >= sizeof buf) return false;
  strcpy(buf, s);
  for (char *save = NULL, *part = strtok_r(buf, ",", &save); part;
       part = strtok_r(NULL, ",", &save)) {
    uint64_t lo, hi;
    char* dash = strchr(part, '-');
    if (dash) {
      *dash = 0;
      if (!parse_u64(part, &lo) || !parse_u64(dash + 1, &hi) || hi < lo) return false;
    } else if (!parse_u64(part, &lo)) {
      return false;
    } else {
      hi = lo;
    }
    if (hi >= TM_MAX_VCPUS) return false;
    for (uint64_t c = lo; c <= hi; ++c) {
      if (layout->cpu_node[c] >= 0) return false; /* a vCPU on two nodes */
      layout->cpu_node[c] = node;
      if ((int)c + 1 > layout->ncpus) layout->ncpus = (int)c + 1;
    }
  }
  return true;
}

int tm_layout_parse(const char* text, struct tm_layout* out, char* err, size_t errlen) {
  memset(out, 0, sizeof *out);
  for (int c = 0; c < TM_MAX_VCPUS; ++c) out->cpu_node[c] = -1;
  bool has_cpus[TM_MAX_NODES] = {0}, has_memory[TM_MAX_NODES] = {0};
  int lineno = 0;
  const char* p = text;
  while (*p) {
    const char* eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    char line[512];
    ++lineno;
    if (len >= sizeof line)
      return fail(err, errlen, "layout line %d: longer than 511 bytes", lineno);
    memcpy(line, p, len);
    line[len] = 0;
    p += len + (eol ? 1 : 0);
    char* hash = strchr(line, '#');
    if (hash) *hash = 0;
    char* words[6];
    int n = 0;
    for (char *save = NULL, *w = strtok_r(line, " \t\r", &save); w && n < 6;
         w = strtok_r(NULL, " \t\r", &save))
      words[n++] = w;
    if (n == 0) continue;
    if (!strcmp(words[0], "cpus")) {
      int node;
      if (n != 3 || !parse_node(words[1], &node) || !parse_cpu_list(words[2], node, out))
        return fail(err, errlen,
                    "layout line %d: expected 'cpus NODE LIST' (node < %d, vCPUs < %d, each once)",
                    lineno, TM_MAX_NODES, TM_MAX_VCPUS);
      has_cpus[node] = true;
      if (node + 1 > out->nodes) out->nodes = node + 1;
    } else if (!strcmp(words[0], "range")) {
      struct tm_range r;
      if (n != 4 || !parse_node(words[1], &r.node) || !parse_u64(words[2], &r.start) ||
          !parse_u64(words[3], &r.end) || r.end <= r.start)
        return fail(err, errlen, "layout line %d: expected 'range NODE START END' with START < END",
                    lineno);
      if (out->nranges == TM_MAX_RANGES)
        return fail(err, errlen, "layout line %d: more than %d ranges", lineno, TM_MAX_RANGES);
      if (out->nranges && r.start < out->ranges[out->nranges - 1].end)
        return fail(err, errlen,
                    "layout line %d: range 0x%" PRIx64 " overlaps or precedes the last", lineno,
                    r.start);
      out->ranges[out->nranges++] = r;
      has_memory[r.node] = true;
      if (r.node + 1 > out->nodes) out->nodes = r.node + 1;
    } else if (!strcmp(words[0], "hmat")) {
      int c, t;
      uint64_t lat, bw;
      if (n != 5 || !parse_node(words[1], &c) || !parse_node(words[2], &t) ||
          !parse_u64(words[3], &lat) || !parse_u64(words[4], &bw) || !lat || !bw)
        return fail(err, errlen,
                    "layout line %d: expected 'hmat INITIATOR TARGET LATENCY_NS BYTES_PER_S' "
                    "(both > 0)",
                    lineno);
      out->latency_ns[c][t] = (double)lat;
      out->bandwidth[c][t] = (double)bw;
    } else {
      return fail(err, errlen, "layout line %d: unknown entry '%s' (cpus, range, hmat)", lineno,
                  words[0]);
    }
  }
  if (out->ncpus == 0) return fail(err, errlen, "layout: no 'cpus' entry");
  if (out->nranges == 0) return fail(err, errlen, "layout: no 'range' entry");
  for (int c = 0; c < out->ncpus; ++c)
    if (out->cpu_node[c] < 0) return fail(err, errlen, "layout: vCPU %d is on no node", c);
  for (int c = 0; c < out->nodes; ++c)
    for (int t = 0; t < out->nodes; ++t)
      if (has_cpus[c] && has_memory[t] && out->latency_ns[c][t] == 0)
        return fail(err, errlen, "layout: no 'hmat %d %d ...' entry (node %d has CPUs, %d memory)",
                    c, t, c, t);
  return 0;
}

int tm_layout_node_of(const struct tm_layout* layout, uint64_t phys) {
  /* A handful of ranges: a linear scan beats a search. */
  for (int i = 0; i < layout->nranges; ++i)
    if (phys >= layout->ranges[i].start && phys < layout->ranges[i].end)
      return layout->ranges[i].node;
  return -1;
}

/* ---- options ------------------------------------------------------------- */

void tm_options_default(struct tm_options* o) {
  o->cache_bytes = 1u << 20;
  o->ways = 16;
  o->streams = 2;
  o->batch_ns = 200e3;
  o->window_ns = 1e6;
  o->scale = 4;
  o->latency_matched = false;
  o->charge_kernel = false;
}

/* tier's value grammar (libtier/src/values/value_scan.c, as tierctl and the
 * preload library read sizes): "1M", "512K", "4096". */
static bool parse_size(const char* s, uint64_t* out) {
  return tier_scan_size(s, s + strlen(s), out) == 0;
}

/* A two-word option: *out = true for `yes`, false for `no`; false when it is neither. */
static bool parse_choice(const char* s, const char* yes, const char* no, bool* out) {
  if (strcmp(s, yes) != 0 && strcmp(s, no) != 0) return false;
  *out = strcmp(s, yes) == 0;
  return true;
}

static bool parse_double(const char* s, double lo, double hi, double* out) {
  char* end;
  if (!*s) return false;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

int tm_options_parse(struct tm_options* o, const char* arg, char* err, size_t errlen) {
  const char* eq = strchr(arg, '=');
  if (!eq) return fail(err, errlen, "option '%s': expected key=value", arg);
  size_t klen = (size_t)(eq - arg);
  const char* v = eq + 1;
#define KEY(name) (klen == sizeof(name) - 1 && !strncmp(arg, name, klen))
  if (KEY("cache")) {
    if (!parse_size(v, &o->cache_bytes) || o->cache_bytes < 4096 || o->cache_bytes > (1u << 30))
      return fail(err, errlen, "option 'cache=%s': expected a size from 4K to 1G (e.g. 1M)", v);
  } else if (KEY("ways")) {
    uint64_t w;
    if (tier_scan_u64(v, v + strlen(v), &w) != 0 || w < 1 || w > 64)
      return fail(err, errlen, "option 'ways=%s': expected an associativity from 1 to 64", v);
    o->ways = (unsigned)w;
  } else if (KEY("streams")) {
    if (!parse_double(v, 0.1, 64, &o->streams))
      return fail(err, errlen, "option 'streams=%s': expected a number from 0.1 to 64", v);
  } else if (KEY("batch_us")) {
    double us;
    if (!parse_double(v, 1, 100000, &us))
      return fail(err, errlen, "option 'batch_us=%s': expected microseconds from 1 to 100000", v);
    o->batch_ns = us * 1e3;
  } else if (KEY("scale")) {
    if (!parse_double(v, 1, 100, &o->scale))
      return fail(err, errlen, "option 'scale=%s': expected a factor from 1 to 100", v);
  } else if (KEY("latency")) {
    if (!parse_choice(v, "matched", "calibrated", &o->latency_matched))
      return fail(err, errlen, "option 'latency=%s': expected calibrated or matched", v);
  } else if (KEY("kernel")) {
    if (!parse_choice(v, "charged", "free", &o->charge_kernel))
      return fail(err, errlen, "option 'kernel=%s': expected charged or free", v);
  } else if (KEY("window_us")) {
    double us;
    if (!parse_double(v, 10, 1e6, &us))
      return fail(err, errlen, "option 'window_us=%s': expected microseconds from 10 to 1000000",
                  v);
    o->window_ns = us * 1e3;
  } else {
    return 1;
  }
#undef KEY
  return 0;
}

/* ---- model --------------------------------------------------------------- */

int tm_model_init(struct tm_model* m, const struct tm_layout* layout,
                  const struct tm_options* options, char* err, size_t errlen) {
  memset(m, 0, sizeof *m);
  m->layout = *layout;
  m->options = *options;
  uint64_t lines = options->cache_bytes >> TM_LINE_SHIFT;
  if (lines % options->ways || ((lines / options->ways) & (lines / options->ways - 1)))
    return fail(err, errlen,
                "options cache=%" PRIu64
                " ways=%u: the number of sets (size / 64 / ways) must be "
                "a power of two",
                options->cache_bytes, options->ways);
  m->latency_min = 0;
  for (int c = 0; c < layout->nodes; ++c)
    for (int t = 0; t < layout->nodes; ++t) {
      double lat = layout->latency_ns[c][t], bw = layout->bandwidth[c][t];
      if (lat > 0 && (m->latency_min == 0 || lat < m->latency_min)) m->latency_min = lat;
      if (bw > m->bandwidth_max) m->bandwidth_max = bw;
      if (bw > m->node_bandwidth[t]) m->node_bandwidth[t] = bw;
    }
  return 0;
}

int tm_vcpu_init(struct tm_vcpu* v, const struct tm_model* m, int vcpu_index) {
  memset(v, 0, sizeof *v);
  if (vcpu_index < 0 || vcpu_index >= m->layout.ncpus) return -1;
  v->node = m->layout.cpu_node[vcpu_index];
  v->ways = m->options.ways;
  v->sets = (unsigned)((m->options.cache_bytes >> TM_LINE_SHIFT) / v->ways);
  v->tags = calloc((size_t)v->sets * v->ways, sizeof *v->tags);
  v->last_miss_line = UINT64_MAX - 1;
  return v->tags ? 0 : -1;
}

void tm_vcpu_free(struct tm_vcpu* v) {
  free(v->tags);
  v->tags = NULL;
}

/* LRU lookup in the line's set: true on a hit; either way the line ends up
 * most recent. */
static bool cache_touch(struct tm_vcpu* v, uint64_t line) {
  uint64_t* set = v->tags + (size_t)(line & (v->sets - 1)) * v->ways;
  uint64_t tag = line + 1;
  unsigned i = 0;
  while (i < v->ways && set[i] != tag) ++i;
  bool hit = i < v->ways;
  if (!hit) i = v->ways - 1; /* evict the least recent */
  memmove(set + 1, set, i * sizeof *set);
  set[0] = tag;
  return hit;
}

double tm_miss_cost(const struct tm_model* m, int cpu_node, int node, bool streamed) {
  if (streamed) {
    double bw = m->layout.bandwidth[cpu_node][node];
    return bw > 0 ? m->tline_ref * m->bandwidth_max / bw : 0;
  }
  double lat = m->layout.latency_ns[cpu_node][node];
  return lat > 0 ? m->t0_ref * lat / m->latency_min : 0;
}

/* How long a line from cpu_node occupies node: the pair's bandwidth, shared
 * by `streams` full-speed streams (a remote pair's line holds the node as
 * long as its slower path takes). */
static double service_ns(const struct tm_model* m, int cpu_node, int node) {
  double bw = m->layout.bandwidth[cpu_node][node];
  return bw > 0 ? m->tline_ref * m->bandwidth_max / bw / m->options.streams : 0;
}

double tm_queue_wait(const struct tm_model* m, int cpu_node, int node, double rho) {
  if (rho > 0.95) rho = 0.95;
  if (rho <= 0) return 0;
  return service_ns(m, cpu_node, node) * rho / (2 * (1 - rho));
}

/* Add the line's service time at its node; the vCPU that finds the window
 * over closes it: utilisation = busy time / window length, smoothed. */
static double node_utilisation(struct tm_model* m, int cpu_node, int node, uint64_t now) {
  struct tm_node_queue* q = &m->queue[node];
  __atomic_add_fetch(&q->busy_ns, (uint64_t)service_ns(m, cpu_node, node), __ATOMIC_RELAXED);
  uint64_t start = __atomic_load_n(&q->window_start, __ATOMIC_RELAXED);
  if (start == 0) {
    __atomic_compare_exchange_n(&q->window_start, &start, now, false, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
  } else if (now > start && (double)(now - start) >= m->options.window_ns &&
             __atomic_compare_exchange_n(&q->window_start, &start, now, false, __ATOMIC_RELAXED,
                                         __ATOMIC_RELAXED)) {
    uint64_t busy = __atomic_exchange_n(&q->busy_ns, 0, __ATOMIC_RELAXED);
    q->rho = 0.5 * q->rho + 0.5 * (double)busy / (double)(now - start);
  }
  return q->rho;
}

void tm_calibrate_node(struct tm_model* m, int node, double t0_ns, double tline_ns) {
  if (node < 0 || node >= TM_MAX_NODES) return;
  if (t0_ns > 0) m->t0[node] = t0_ns;
  if (tline_ns > 0) m->tline[node] = tline_ns;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* values, int count) {
  qsort(values, (size_t)count, sizeof *values, cmp_double);
  return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

bool tm_start_charging(struct tm_model* m, int ref) {
  if (ref < 0 || ref >= m->layout.nodes || m->t0[ref] <= 0 || m->tline[ref] <= 0 ||
      m->layout.latency_ns[ref][ref] <= 0)
    return false;
  /* The median of the nodes' bases: one node's excursion (TCG's soft TLB
   * was small while it was measured) must not set every node's cost. */
  double t0s[TM_MAX_NODES], tlines[TM_MAX_NODES];
  int count = 0;
  for (int n = 0; n < m->layout.nodes; ++n) {
    bool has_memory = false;
    for (int i = 0; i < m->layout.nranges; ++i) has_memory |= m->layout.ranges[i].node == n;
    if (!has_memory) continue;
    if (m->t0[n] <= 0 || m->tline[n] <= 0) return false;
    t0s[count] = m->t0[n];
    tlines[count++] = m->tline[n];
  }
  double t0 = median(t0s, count), tline = median(tlines, count);
  m->t0_ref = m->options.scale * t0 * m->latency_min / m->layout.latency_ns[ref][ref];
  m->tline_ref = m->options.scale * tline * m->layout.bandwidth[ref][ref] / m->bandwidth_max;
  if (m->options.latency_matched) {
    /* tline_ref is the cost of a line at bandwidth_max: D = tline_ref / (64 B at that rate). */
    double line_ns = (double)(1u << TM_LINE_SHIFT) * 1e9 / m->bandwidth_max;
    m->t0_ref = m->tline_ref / line_ns * m->latency_min;
  }
  m->charging = true;
  return true;
}

double tm_access(struct tm_model* m, struct tm_vcpu* v, uint64_t phys, tm_clock_fn now) {
  int node = tm_layout_node_of(&m->layout, phys);
  if (node < 0) {
    if (!v->unmapped++ || phys < v->unmapped_min) v->unmapped_min = phys;
    if (phys > v->unmapped_max) v->unmapped_max = phys;
    return 0;
  }
  struct tm_node_counters* c = &v->per_node[node];
  ++c->accesses;
  uint64_t line = phys >> TM_LINE_SHIFT;
  if (cache_touch(v, line)) return 0;
  ++c->misses;
  bool streamed = line == v->last_miss_line + 1 || line + 1 == v->last_miss_line;
  v->last_miss_line = line;
  if (streamed) ++c->streamed;
  if (!m->charging) return 0;
  /* Host time since the last miss, without the stalls paid meanwhile. */
  uint64_t t = now(), own = t - v->paid_ns;
  double since = v->last_miss_ns && own > v->last_miss_ns ? (double)(own - v->last_miss_ns) : 0;
  v->last_miss_ns = own;
  double delay = tm_miss_cost(m, v->node, node, streamed) - since;
  if (delay < 0) delay = 0;
  double wait =
      tm_queue_wait(m, v->node, node, node_utilisation(m, v->node, node, t + (uint64_t)v->debt_ns));
  c->stall_ns += delay;
  c->queue_ns += wait;
  v->debt_ns += delay + wait;
  return delay + wait;
}

void tm_access_uncharged(struct tm_model* m, struct tm_vcpu* v, uint64_t phys) {
  int node = tm_layout_node_of(&m->layout, phys);
  if (node < 0) return;
  struct tm_node_counters* c = &v->per_node[node];
  ++c->accesses;
  ++c->kernel;
  if (!cache_touch(v, phys >> TM_LINE_SHIFT)) ++c->misses;
}

bool tm_doorbell_store(struct tm_model* m, struct tm_vcpu* v, uint64_t value) {
  switch (v->doorbell) {
    case 0:
      if (value == TM_DOOR_MAGIC) v->doorbell = 1;
      return false;
    case 1:
      if ((value & UINT64_C(0xffff000000000000)) != TM_DOOR_TAG) {
        v->doorbell = value == TM_DOOR_MAGIC;
        return false;
      }
      v->door_cmd = value & 0xffff;
      v->doorbell = 2;
      return false;
    default: {
      v->doorbell = 0;
      int node = (int)(v->door_cmd >> 8);
      switch (v->door_cmd & 0xff) {
        case TM_DOOR_SET_T0:
          tm_calibrate_node(m, node, (double)value / 1e3, 0);
          return true;
        case TM_DOOR_SET_TLINE:
          tm_calibrate_node(m, node, 0, (double)value / 1e3);
          return true;
        case TM_DOOR_CHARGE:
          if (value == TM_DOOR_OFF) {
            m->charging = false;
            return true;
          }
          tm_start_charging(m, (int)value);
          return true;

        default:
          return false;
      }
    }
  }
}
