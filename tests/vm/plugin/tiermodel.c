/*
 * tiermodel: a QEMU TCG plugin that makes the emulated machine's slow memory
 * slow. Every guest load and store goes through model.c (a per-vCPU cache,
 * HMAT latency and bandwidth by node, a bandwidth queue per node); what a
 * miss is charged becomes guest-visible time by stalling only the vCPU that
 * missed: its thread sleeps off its debt in batches (multi-threaded TCG, one
 * host thread per vCPU, so the other vCPUs run on).
 *
 * Options (-plugin libtiermodel.so,KEY=VALUE,...):
 *   layout=FILE   the machine's memory layout (required; lib/qemu_topology.py
 *                 --plugin-layout writes it from the topology JSON)
 *   out=FILE      per vCPU x node counters, JSON, written at exit (required)
 *   cache=SIZE    per-vCPU last-level cache (default 1M)
 *   ways=N        its associativity (default 16)
 *   streams=X     full-speed streams a node serves before queueing (default 2)
 *   scale=K       the fastest pair costs K x TCG's own base (default 4)
 *   latency=matched|calibrated  random misses get the streams' time dilation
 *                 (model.h; default calibrated)
 *   batch_us=US   stalls paid in batches of at least this (default 200)
 *   window_us=US  the queue model's utilisation window (default 1000)
 *   kernel=charged|free  free: the guest kernel's own accesses (upper-half
 *                 addresses) go through the cache model uncharged
 *                 (model.h, tm_access_uncharged; default free)
 * Any bad option or layout: the plugin refuses to install, so QEMU refuses to
 * start, with the reason on stderr.
 *
 * Built against the qemu-plugin.h of the QEMU that loads it (API version 4,
 * QEMU 10 from bookworm-backports: its phys_addr is the true guest-physical
 * address, and its multi-threaded TCG runs the eBPF scenarios; QEMU 7.2's is
 * neither, see docs/testing.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <qemu-plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static struct tm_model model;
static struct tm_vcpu* vcpus;
static int nvcpus;
static const char* out_path;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Stall this vCPU's thread for what it owes. Sleeping (not spinning) leaves
 * the host core to the other vCPUs; the sleep's overshoot is carried as
 * negative debt, so the average charge is exact. */
static void pay(struct tm_vcpu* v) {
  uint64_t start = now_ns();
  struct timespec ts = {.tv_sec = (time_t)(v->debt_ns / 1e9),
                        .tv_nsec = (long)((uint64_t)v->debt_ns % 1000000000u)};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
  uint64_t spent = now_ns() - start;
  v->debt_ns -= (double)spent;
  v->paid_ns += spent;
}

/* A doorbell command done: the calibration as it stands, in the -D log. */
static void doorbell_note(unsigned vcpu_index) {
  char msg[600];
  int len = snprintf(msg, sizeof msg,
                     "tiermodel: vCPU %u: charging %s, t0_ref %.1f ns, tline_ref %.1f ns;",
                     vcpu_index, model.charging ? "on" : "off", model.t0_ref, model.tline_ref);
  for (int n = 0; n < model.layout.nodes && len < (int)sizeof msg - 60; ++n)
    len += snprintf(msg + len, sizeof msg - (size_t)len, " node %d t0 %.1f tline %.1f", n,
                    model.t0[n], model.tline[n]);
  snprintf(msg + len, sizeof msg - (size_t)len, "\n");
  qemu_plugin_outs(msg);
}

static void on_mem(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
                   void* udata) {
  (void)udata;
  if ((int)vcpu_index >= nvcpus) return;
  struct tm_vcpu* v = &vcpus[vcpu_index];
  struct qemu_plugin_hwaddr* hw = qemu_plugin_get_hwaddr(info, vaddr);
  if (!hw) return;
  if (qemu_plugin_hwaddr_is_io(hw)) {
    ++v->io;
    return;
  }
  if (qemu_plugin_mem_is_store(info) && qemu_plugin_mem_size_shift(info) == 3) {
    qemu_plugin_mem_value value = qemu_plugin_mem_get_value(info);
    if (tm_doorbell_store(&model, v, value.data.u64)) doorbell_note(vcpu_index);
  }
  /* x86-64: the kernel's own addresses are the upper half (bit 63 set). */
  if (!model.options.charge_kernel && (vaddr >> 63) != 0) {
    tm_access_uncharged(&model, v, qemu_plugin_hwaddr_phys_addr(hw));
    return;
  }
  tm_access(&model, v, qemu_plugin_hwaddr_phys_addr(hw), now_ns);
  if (v->debt_ns >= model.options.batch_ns) pay(v);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; ++i)
    qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), on_mem, QEMU_PLUGIN_CB_NO_REGS,
                                     QEMU_PLUGIN_MEM_RW, NULL);
}

static void write_counters(FILE* f) {
  fprintf(f, "{\n  \"charging\": %s,\n  \"t0_ref_ns\": %.3f,\n  \"tline_ref_ns\": %.3f,\n",
          model.charging ? "true" : "false", model.t0_ref, model.tline_ref);
  fprintf(f, "  \"calibration\": [");
  for (int n = 0; n < model.layout.nodes; ++n)
    fprintf(f, "%s{\"node\": %d, \"t0_ns\": %.3f, \"tline_ns\": %.3f}", n ? ", " : "", n,
            model.t0[n], model.tline[n]);
  fprintf(f, "],\n");
  fprintf(f,
          "  \"cache_bytes\": %" PRIu64
          ",\n  \"ways\": %u,\n  \"streams\": %.3f,\n"
          "  \"scale\": %.3f,\n  \"latency\": \"%s\",\n  \"batch_ns\": %.0f,\n"
          "  \"window_ns\": %.0f,\n",
          model.options.cache_bytes, model.options.ways, model.options.streams, model.options.scale,
          model.options.latency_matched ? "matched" : "calibrated", model.options.batch_ns,
          model.options.window_ns);
  fprintf(f, "  \"vcpus\": [\n");
  for (int i = 0; i < nvcpus; ++i) {
    const struct tm_vcpu* v = &vcpus[i];
    fprintf(f,
            "    {\"vcpu\": %d, \"node\": %d, \"unmapped\": %" PRIu64 ", \"unmapped_min\": %" PRIu64
            ", \"unmapped_max\": %" PRIu64 ", \"io\": %" PRIu64 ", \"paid_ns\": %" PRIu64
            ", \"debt_ns\": %.0f, \"nodes\": [",
            i, v->node, v->unmapped, v->unmapped_min, v->unmapped_max, v->io, v->paid_ns,
            v->debt_ns);
    for (int n = 0; n < model.layout.nodes; ++n) {
      const struct tm_node_counters* c = &v->per_node[n];
      fprintf(f,
              "%s\n      {\"node\": %d, \"accesses\": %" PRIu64 ", \"misses\": %" PRIu64
              ", \"streamed\": %" PRIu64
              ", \"stall_ns\": %.0f, \"queue_ns\": %.0f"
              ", \"uncharged\": %" PRIu64 "}",
              n ? "," : "", n, c->accesses, c->misses, c->streamed, c->stall_ns, c->queue_ns,
              c->kernel);
    }
    fprintf(f, "]}%s\n", i + 1 < nvcpus ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
}

static void on_exit_cb(qemu_plugin_id_t id, void* udata) {
  (void)id;
  (void)udata;
  FILE* f = fopen(out_path, "w");
  if (!f) {
    fprintf(stderr, "tiermodel: out=%s: %s\n", out_path, strerror(errno));
    return;
  }
  write_counters(f);
  fclose(f);
}

static char* read_file(const char* path, char* err, size_t errlen) {
  FILE* f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "layout=%s: %s", path, strerror(errno));
    return NULL;
  }
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  bool more = fgetc(f) != EOF;
  fclose(f);
  if (more) {
    snprintf(err, errlen, "layout=%s: larger than %zu bytes", path, sizeof buf - 1);
    return NULL;
  }
  buf[n] = 0;
  return buf;
}

static int refuse(const char* why) {
  fprintf(stderr, "tiermodel: %s\n", why);
  return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  char err[512];
  struct tm_options options;
  tm_options_default(&options);
  const char* layout_path = NULL;
  if (!info->system_emulation) return refuse("needs full-system emulation");
  for (int i = 0; i < argc; ++i) {
    if (!strncmp(argv[i], "layout=", 7)) {
      layout_path = argv[i] + 7;
    } else if (!strncmp(argv[i], "out=", 4)) {
      out_path = argv[i] + 4;
    } else {
      int rc = tm_options_parse(&options, argv[i], err, sizeof err);
      if (rc < 0) return refuse(err);
      if (rc > 0) {
        snprintf(err, sizeof err,
                 "unknown option '%s' (layout, out, cache, ways, streams, scale, latency, "
                 "batch_us, window_us)",
                 argv[i]);
        return refuse(err);
      }
    }
  }
  if (!layout_path || !*layout_path) return refuse("option 'layout=FILE' is required");
  if (!out_path || !*out_path) return refuse("option 'out=FILE' is required");
  char* text = read_file(layout_path, err, sizeof err);
  if (!text) return refuse(err);
  struct tm_layout layout;
  if (tm_layout_parse(text, &layout, err, sizeof err) < 0) return refuse(err);
  if (layout.ncpus != info->system.max_vcpus) {
    snprintf(err, sizeof err, "layout=%s places %d vCPUs, the machine has %d", layout_path,
             layout.ncpus, info->system.max_vcpus);
    return refuse(err);
  }
  if (tm_model_init(&model, &layout, &options, err, sizeof err) < 0) return refuse(err);
  nvcpus = layout.ncpus;
  vcpus = calloc((size_t)nvcpus, sizeof *vcpus);
  if (!vcpus) return refuse("out of memory");
  for (int i = 0; i < nvcpus; ++i)
    if (tm_vcpu_init(&vcpus[i], &model, i) < 0) return refuse("out of memory for the caches");
  FILE* probe = fopen(out_path, "w");
  if (!probe) {
    snprintf(err, sizeof err, "out=%s: %s", out_path, strerror(errno));
    return refuse(err);
  }
  fclose(probe);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
  qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
  return 0;
}
