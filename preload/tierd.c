/* `auto`: one workloads.list request to tierd at start-up, read into a
 * static buffer and searched for this pid's workload and its class. Called
 * from the constructor only (never inside an allocation); short timeouts so
 * a stuck daemon cannot hold the program up. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "tp_internal.h"

static char reply[1 << 20];

static size_t request(const char* socket_path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  struct timeval tv = {0, 500000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(socket_path) >= sizeof addr.sun_path) {
    close(fd);
    return 0;
  }
  tp_str_append(addr.sun_path, sizeof addr.sun_path, socket_path);
  static const char line[] = "{\"version\":1,\"method\":\"workloads.list\"}\n";
  size_t got = 0;
  if (connect(fd, (struct sockaddr*)&addr, sizeof addr) == 0 &&
      write(fd, line, sizeof line - 1) == (ssize_t)(sizeof line - 1)) {
    while (got + 1 < sizeof reply) {
      ssize_t n = read(fd, reply + got, sizeof reply - 1 - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += (size_t)n;
      if (reply[got - 1] == '\n') break; /* one reply line */
    }
  }
  close(fd);
  reply[got] = '\0';
  return got;
}

/* The workload object around offset `at`: from its "{\"id\"" to the next. */
static int class_near(const char* start, const char* at) {
  const char* begin = at;
  while (begin > start && strncmp(begin, "{\"id\"", 5) != 0) --begin;
  const char* end = strstr(at, "{\"id\"");
  for (const char* s = begin; (s = strstr(s, "\"class\":\"")) != NULL && (end == NULL || s < end);
       ++s) {
    s += 9;
    if (strncmp(s, "online\"", 7) == 0) return 1;
    if (strncmp(s, "offline\"", 8) == 0) return 0;
    return -1;
  }
  return -1;
}

int tp_tierd_class(const char* socket_path, int pid) {
  if (request(socket_path) == 0 || strstr(reply, "\"ok\":true") == NULL) return -1;
  char key[32] = "\"pid\":";
  tp_str_append_u64(key, sizeof key, (uint64_t)pid);
  for (const char* s = reply; (s = strstr(s, key)) != NULL; ++s) {
    const char after = s[strlen(key)];
    if (after == ',' || after == '}') return class_near(reply, s);
  }
  return -1;
}
