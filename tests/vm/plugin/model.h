/*
 * The memory model of the emulated machine's latency plugin (tiermodel.c),
 * free of QEMU so that the host's unit tests can drive it.
 *
 * What it models, per guest memory access:
 *   1. a per-vCPU last-level cache (set-associative, LRU): a hit costs
 *      nothing beyond what TCG already spends;
 *   2. a miss is a 64-byte line fetched from the NUMA node that holds its
 *      guest-physical address (the layout: ranges -> node, vCPU -> node);
 *   3. the line is charged the HMAT latency ratio of (vCPU's node -> that
 *      node) when it is a random miss, or the HMAT bandwidth ratio when it
 *      continues the vCPU's last miss (a stream the prefetcher would hide);
 *   4. every line also occupies its node's memory for a service time set by
 *      the node's bandwidth, and waits M/D/1's mean wait at the node's
 *      current utilisation: loaded latency rises with use.
 *
 * Time. TCG is far slower than hardware, and unevenly so: a dependent miss
 * costs it 160-450 ns, a streamed line 80-130 ns, and the same load varies
 * by 2x with the state of TCG's soft TLB (it grows only when flushed). An
 * additive delay on top of that base would carry its variation into every
 * ratio. So the model sets each miss's *total*: from the vCPU's previous
 * miss to this one (host time, the model's own stalls excluded) must take
 *     random miss   c -> n: t0_ref    * latency[c][n] / latency_min
 *     streamed line c -> n: tline_ref * bandwidth_max / bandwidth[c][n]
 * and the miss is charged what is missing (never below 0): TCG's own work
 * between two misses overlaps the modelled latency, as an out-of-order core
 * overlaps independent work with an outstanding miss. t0_ref and tline_ref
 * are TCG's measured base (the calibration: ns per dependent load and per
 * streamed line on every node, measured by the guest with the model
 * charging nothing, calibrate.c; the median over nodes) times `scale`, the one
 * calibration factor (default 4): the fastest pair then costs 4 x TCG's
 * usual base, so that a program's own work between two misses (TCG runs it
 * ~100x slower than hardware, memory only ~3x) does not hide the latency.
 * Until calibrated the model only counts.
 *
 * latency=matched. Calibrated so, a streamed line costs ~100x what it costs
 * on the modelled machine (TCG's own base per line is ~30x HMAT's 3 ns at
 * 20 GB/s) while a random miss costs only ~2.5x HMAT's latency: a program
 * whose own work between misses takes microseconds under TCG (hotset's Zipf
 * draw: ~7 us an access) hides every latency, and runs as fast from node 2
 * as from node 0. latency=matched gives latency the bandwidth's time
 * dilation D = tline_ref / (64 B / bandwidth_max), so that t0_ref =
 * D x latency_min: compute, streams and random misses all run D times
 * slower than on the modelled machine, and a workload's throughput follows
 * its placement as it would there (the head-to-head, bench-placement.sh).
 * The ratios between pairs are the same formula either way.
 *
 * Bandwidth. Node n serves `streams` (default 2) full-speed streams: a line from c
 * occupies it S = tline_ref * bandwidth_max / bandwidth[c][n] / streams (a
 * remote pair's slower path holds it longer). Its utilisation rho (the
 * service time of the lines it served over host time, smoothed over windows
 * of 1 ms) sets every line's queueing delay by M/D/1's mean wait,
 * S * rho / (2 (1 - rho)): flat at low use, rising steeply near capacity, so
 * under heavy use a fast node can be slower than a lightly used slow one.
 * Every stream pays its own share of it, the same fraction on every node,
 * so the ratios between pairs stay HMAT's.
 */
#ifndef TIER_VM_PLUGIN_MODEL_H
#define TIER_VM_PLUGIN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TM_MAX_NODES 8
#define TM_MAX_RANGES 32
#define TM_MAX_VCPUS 64
#define TM_LINE_SHIFT 6 /* 64-byte lines */

/* The machine's memory layout, as the runner derives it from the topology
 * JSON it builds QEMU's options from (lib/qemu_topology.py --plugin-layout). */
struct tm_range {
  uint64_t start, end; /* guest-physical, [start, end) */
  int node;
};

struct tm_layout {
  int nodes; /* highest node id + 1 */
  int nranges;
  struct tm_range ranges[TM_MAX_RANGES];
  int ncpus;
  int cpu_node[TM_MAX_VCPUS];
  /* HMAT: latency ns and bandwidth bytes/s per (initiator node, target); 0 = none. */
  double latency_ns[TM_MAX_NODES][TM_MAX_NODES];
  double bandwidth[TM_MAX_NODES][TM_MAX_NODES];
};

/* Parse the layout text; 0 on success, else -1 with a message in err naming
 * the line and what is wrong. Checks: ranges ordered and disjoint, every
 * vCPU 0..ncpus-1 on a node, an HMAT entry (latency and bandwidth > 0) for
 * every (node with CPUs, node with memory) pair. */
int tm_layout_parse(const char* text, struct tm_layout* out, char* err, size_t errlen);

/* The node of a guest-physical address, -1 when no range holds it. */
int tm_layout_node_of(const struct tm_layout* layout, uint64_t phys);

struct tm_options {
  uint64_t cache_bytes; /* per-vCPU last-level cache, default 1 MiB */
  unsigned ways;        /* associativity, default 16 */
  double streams;       /* full-speed streams a node serves (its capacity), default 2 */
  double batch_ns;      /* charges paid in batches of at least this, default 200 us */
  double window_ns;     /* utilisation window of the queue model, default 1 ms */
  double scale;         /* the fastest pair costs scale x TCG's own base, default 4 */
  bool latency_matched; /* latency=matched: t0_ref from tline_ref's time dilation */
  bool charge_kernel;   /* kernel=charged or free (default): see tm_access_uncharged() */
};

void tm_options_default(struct tm_options* options);

/* Parse one "key=value" plugin argument into options (layout=, out= are the
 * glue's own and left to it: returns 1 for a key it does not know). 0 on
 * success, -1 with a message in err on a bad value. */
int tm_options_parse(struct tm_options* options, const char* arg, char* err, size_t errlen);

struct tm_node_counters {
  uint64_t accesses; /* loads and stores that mapped to the node */
  uint64_t misses;   /* of those, missed the cache model */
  uint64_t streamed; /* of the misses, continued the previous miss */
  double stall_ns;   /* latency/bandwidth delay charged */
  double queue_ns;   /* waiting for the node's bandwidth */
  uint64_t kernel;   /* of the accesses, charged nothing (kernel=free) */
};

/* One vCPU's cache, stream detector, debt and counters. */
struct tm_vcpu {
  int node;
  unsigned sets, ways;
  uint64_t* tags; /* sets * ways, line number + 1 (0 = empty), most recent first */
  uint64_t last_miss_line;
  double debt_ns;    /* charged, not yet paid (may go negative after an overshoot) */
  uint64_t paid_ns;  /* time actually spent paying */
  uint64_t unmapped; /* RAM accesses no range holds (firmware ROM: pc.bios below 4 GiB) */
  uint64_t unmapped_min, unmapped_max; /* their lowest and highest address */
  uint64_t io;                         /* MMIO accesses (not modelled) */
  struct tm_node_counters per_node[TM_MAX_NODES];
  uint64_t last_miss_ns; /* host clock minus paid stalls at the last miss */
  int doorbell;          /* doorbell state (tm_doorbell) */
  uint64_t door_cmd;     /* the command word being received */
};

/* A node's memory as a queue: the lines it served in the current window and
 * the utilisation of the windows before (updated by whichever vCPU closes a
 * window; races only blur the estimate). */
struct tm_node_queue {
  uint64_t window_start; /* host ns */
  uint64_t busy_ns;      /* service time of the lines in the current window, atomically added */
  double rho;            /* smoothed utilisation, 0..1+ */
};

/* Shared by all vCPUs. */
struct tm_model {
  struct tm_layout layout;
  struct tm_options options;
  double latency_min;                  /* smallest HMAT latency */
  double bandwidth_max;                /* largest HMAT bandwidth */
  double node_bandwidth[TM_MAX_NODES]; /* best bandwidth any initiator has to the node */
  /* Calibration, host ns: TCG's own cost per node, and of the fastest pair. */
  double t0[TM_MAX_NODES], tline[TM_MAX_NODES];
  double t0_ref, tline_ref;
  bool charging; /* off until calibrated */
  struct tm_node_queue queue[TM_MAX_NODES];
};

int tm_model_init(struct tm_model* model, const struct tm_layout* layout,
                  const struct tm_options* options, char* err, size_t errlen);

int tm_vcpu_init(struct tm_vcpu* vcpu, const struct tm_model* model, int vcpu_index);
void tm_vcpu_free(struct tm_vcpu* vcpu);

/* The host's monotonic clock in ns (a seam: the unit tests pass their own). */
typedef uint64_t (*tm_clock_fn)(void);

/* One guest access of RAM at guest-physical phys by vcpu: runs the cache
 * model, charges a miss to vcpu->debt_ns (reading now() only then, for the
 * node's queue). Returns the delay charged (0 for a hit). */
double tm_access(struct tm_model* model, struct tm_vcpu* vcpu, uint64_t phys, tm_clock_fn now);

/* The same access run through the cache model and counted, but charged
 * nothing: with kernel=free, what the guest kernel does through its own
 * (upper-half) addresses. Why it is an option: under latency=matched every
 * random miss costs t0_ref (~100x HMAT's latency), and the kernel's own work
 * (a page migration's struct pages, page tables, rmap and LRU; a page-table
 * walk) is made of random misses that a server's large shared cache mostly
 * serves and the model's per-vCPU cache does not: a 32 MiB migration took
 * 37 s charged and 2.7 s uncharged, where ~100x hardware's 3 us a page is
 * ~2.6 s (docs/benchmarks.md "Residency scans"). Counts the access under
 * `kernel` in its node's counters. */
void tm_access_uncharged(struct tm_model* model, struct tm_vcpu* vcpu, uint64_t phys);

/* What a miss from cpu_node to node costs in all, host ns (no queue). */
double tm_miss_cost(const struct tm_model* model, int cpu_node, int node, bool streamed);

/* The queueing delay of a line from cpu_node at node given the node's
 * utilisation rho: M/D/1's mean wait, S * rho / (2 (1 - rho)), rho capped
 * at 0.95, S the pair's service time. */
double tm_queue_wait(const struct tm_model* model, int cpu_node, int node, double rho);

/* Calibration: TCG's measured cost of a dependent load (t0) and of a
 * streamed line (tline) on node's memory, host ns. */
void tm_calibrate_node(struct tm_model* model, int node, double t0_ns, double tline_ns);

/* Start charging, the calibration having been measured from a CPU of
 * ref_node: t0_ref = scale * median(t0) * latency_min / latency[ref][ref],
 * likewise tline with bandwidth. Returns false (and stays off) when ref_node
 * or a node with memory is uncalibrated. */
bool tm_start_charging(struct tm_model* model, int ref_node);

/* The doorbell: a guest program tells the plugin its calibration by three
 * 8-byte stores in a row on one vCPU: TM_DOOR_MAGIC, a command word
 * (TM_DOOR_TAG | command), a value. Returns true when a command completed. */
#define TM_DOOR_MAGIC UINT64_C(0x4c444f4d52454954) /* "TIERMODL" in memory */
#define TM_DOOR_TAG UINT64_C(0x5443000000000000)
enum tm_door_command {
  TM_DOOR_SET_T0 = 1,    /* value: picoseconds; node in bits 8-15 of the command word */
  TM_DOOR_SET_TLINE = 2, /* value: picoseconds; node likewise */
  TM_DOOR_CHARGE = 3,    /* value: the calibrating CPU's node (tm_start_charging), or
                            TM_DOOR_OFF to stop charging */
};
#define TM_DOOR_OFF UINT64_C(0xffff)
bool tm_doorbell_store(struct tm_model* model, struct tm_vcpu* vcpu, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif
