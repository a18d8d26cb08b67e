/* Global state, lazy initialisation and the constructor/destructor.
 *
 * The first allocation (possibly inside ld.so, before our constructor) runs
 * tp_init_slow(): environment, sysfs, no malloc. While one thread initialises,
 * others are served by glibc directly (never blocked). Everything that might
 * print, talk to tierd or register fork handlers waits for the constructor. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "tp_internal.h"

extern char** environ;

struct tp_config tp_cfg;
struct tp_topology tp_topo;
atomic_int tp_state;
atomic_int tp_auto_mode = TP_MODE_LOCAL;
atomic_ullong tp_ratio_bytes[2];
size_t tp_place_min; /* see tp_should_place() */

static char warning[512];
static int init_pid;

/* getenv without the libc's own state: environ may be all there is this early. */
static const char* env(const char* name) {
  const size_t n = strlen(name);
  for (char** e = environ; e != NULL && *e != NULL; ++e)
    if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}

static int uses_set(enum tp_mode m) {
  return m == TP_MODE_NODES || m == TP_MODE_INTERLEAVE || m == TP_MODE_PREFERRED_MANY ||
         m == TP_MODE_WEIGHTED;
}

/* Every node the policy names must have memory on this machine. */
static int check_nodes(void) {
  for (int n = 0; n < TP_MAX_NODES; ++n) {
    if (!tp_mask_test(&tp_cfg.nodes, n) || tp_mask_test(&tp_topo.memory, n)) continue;
    warning[0] = '\0';
    tp_str_append(warning, sizeof warning, "TIER_PRELOAD_POLICY='");
    tp_str_append(warning, sizeof warning, tp_cfg.policy_text);
    tp_str_append(warning, sizeof warning, "': node ");
    tp_str_append_u64(warning, sizeof warning, (uint64_t)n);
    tp_str_append(warning, sizeof warning, " has no memory on this machine");
    return -1;
  }
  return 0;
}

static void configure(void) {
  if (getauxval(AT_SECURE) != 0) { /* setuid/setgid/capabilities: never act */
    tp_cfg.mode = TP_MODE_OFF;
  } else if (tp_parse_config(env("TIER_PRELOAD_POLICY"), env("TIER_PRELOAD_THRESHOLD"),
                             env("TIER_PRELOAD_STRICT"), env("TIER_PRELOAD_LOG"),
                             env("TIER_PRELOAD_STATS"), &tp_cfg, warning, sizeof warning) == 0 &&
             tp_cfg.mode != TP_MODE_OFF) {
    const int set = uses_set(tp_cfg.mode);
    if (tp_read_topology("", set ? &tp_cfg.nodes : NULL, &tp_topo) != 0) {
      tp_str_append(warning, sizeof warning, "/sys/devices/system/node unreadable");
      tp_cfg.mode = TP_MODE_OFF;
    } else if (set && check_nodes() != 0) {
      tp_cfg.mode = TP_MODE_OFF;
    }
  }
  if (tp_cfg.mode == TP_MODE_OFF) {
    tp_cfg.min_size = SIZE_MAX; /* nothing is ever placed */
    tp_cfg.max_size = 0;
  }
}

void tp_init_slow(void) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&tp_state, &expected, 1)) return;
  if (environ == NULL) { /* too early to know: stay plain glibc, ask again next time */
    atomic_store_explicit(&tp_state, 0, memory_order_release);
    return;
  }
  configure();
  if (tp_cfg.mode != TP_MODE_OFF) tp_stats_identify(&tp_cfg, tp_topo.nr_nodes);
  init_pid = getpid();
  atomic_store_explicit(&tp_state, 2, memory_order_release);
  __atomic_store_n(&tp_place_min, tp_cfg.min_size, __ATOMIC_RELEASE);
}

int tp_should_place_slow(size_t size) {
  if (atomic_load_explicit(&tp_state, memory_order_acquire) != 2) {
    tp_init_slow();
    if (atomic_load_explicit(&tp_state, memory_order_acquire) != 2) return 0;
  }
  return size >= tp_cfg.min_size && size <= tp_cfg.max_size;
}

/* Test seam: forget the configuration so the next allocation reads the
 * environment again (the unit tests run several configurations). */
void tp_reinit_for_tests(void) {
  warning[0] = '\0';
  memset(&tp_topo, 0, sizeof tp_topo);
  tp_place_min = 0;
  atomic_store(&tp_state, 0);
  tp_init_slow();
}

const char* tp_warning(void) {
  return warning;
}

static void write_str(int fd, const char* s) {
  if (write(fd, s, strlen(s)) < 0) return; /* nowhere to report a failed report */
}

static int log_fd(void) {
  if (tp_cfg.log_stderr) return 2;
  if (tp_cfg.log_path[0] == '\0') return -1;
  return open(tp_cfg.log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static void log_close(int fd) {
  if (fd > 2) close(fd);
}

static const char* mode_name(int mode) {
  switch (mode) {
    case TP_MODE_FAST:
      return "fast";
    case TP_MODE_SLOW:
      return "slow";
    default:
      return "local";
  }
}

static void log_start(void) {
  int fd = log_fd();
  if (fd < 0) return;
  char line[1024] = "tierpreload: pid ";
  tp_str_append_u64(line, sizeof line, (uint64_t)getpid());
  tp_str_append(line, sizeof line, " policy ");
  tp_str_append(line, sizeof line, tp_cfg.policy_text);
  if (tp_cfg.mode == TP_MODE_AUTO) {
    tp_str_append(line, sizeof line, " (tierd: ");
    tp_str_append(line, sizeof line, mode_name(atomic_load(&tp_auto_mode)));
    tp_str_append(line, sizeof line, ")");
  }
  static const char* const strict_names[] = {"none", "advisory", "strict"};
  tp_str_append(line, sizeof line, " strict ");
  tp_str_append(line, sizeof line, strict_names[tp_cfg.strict]);
  tp_str_append(line, sizeof line, " threshold ");
  tp_str_append_u64(line, sizeof line, tp_cfg.min_size);
  if (tp_cfg.max_size != SIZE_MAX) {
    tp_str_append(line, sizeof line, ":");
    tp_str_append_u64(line, sizeof line, tp_cfg.max_size);
  }
  tp_str_append(line, sizeof line, tp_topo.tiers_from_kernel ? " tiers kernel" : " tiers guessed");
  for (int c = 0; c < tp_topo.nr_nodes; ++c) {
    if (tp_topo.fast_for[c] < 0) continue;
    tp_str_append(line, sizeof line, "; from node ");
    tp_str_append_u64(line, sizeof line, (uint64_t)c);
    tp_str_append(line, sizeof line, ": fast ");
    tp_str_append_u64(line, sizeof line, (uint64_t)tp_topo.fast_for[c]);
    tp_str_append(line, sizeof line, " slow ");
    tp_str_append_u64(line, sizeof line, (uint64_t)tp_topo.slow_for[c]);
  }
  if (!tp_topo.has_slow_tier) tp_str_append(line, sizeof line, " (no slower tier: slow = fast)");
  tp_str_append(line, sizeof line, "\n");
  write_str(fd, line);
  log_close(fd);
}

static void after_fork_child(void) {
  tp_stats_after_fork_child();
}

__attribute__((constructor)) static void tp_constructor(void) {
  tp_init_slow();
  if (atomic_load(&tp_state) != 2) return;
  if (warning[0] != '\0') {
    write_str(2, "tierpreload: warning: ");
    write_str(2, warning);
    write_str(2, "; placement off (plain glibc)\n");
  }
  if (tp_cfg.mode == TP_MODE_OFF) return;
  if (tp_cfg.mode == TP_MODE_AUTO) {
    const char* socket_path = env("TIER_PRELOAD_SOCKET");
    const int klass =
        tp_tierd_class(socket_path != NULL ? socket_path : "/run/tier/tierd.sock", (int)getpid());
    atomic_store(&tp_auto_mode,
                 klass == 1 ? TP_MODE_FAST : (klass == 0 ? TP_MODE_SLOW : TP_MODE_LOCAL));
  }
  tp_stats_setup(&tp_cfg, tp_topo.nr_nodes);
  pthread_atfork(NULL, NULL, after_fork_child);
  log_start();
}

__attribute__((destructor)) static void tp_destructor(void) {
  if (atomic_load(&tp_state) != 2 || tp_cfg.mode == TP_MODE_OFF) return;
  /* A forked child exiting must not overwrite its parent's file (unless %p). */
  const int own = getpid() == init_pid || strstr(tp_cfg.stats_path, "%p") != NULL;
  if (tp_cfg.stats_path[0] != '\0' && own) tp_stats_write_file(tp_cfg.stats_path);
  int fd = log_fd();
  if (fd >= 0) {
    tp_stats_log_summary(fd);
    log_close(fd);
  }
}
