/* Raw sysfs reads into caller buffers: open/read/close only, because this
 * runs inside the first malloc call, where stdio (which allocates) is off
 * limits. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "tp_internal.h"

void tp_str_append(char* dst, size_t cap, const char* src) {
  size_t used = strlen(dst);
  while (*src != '\0' && used + 1 < cap) dst[used++] = *src++;
  dst[used] = '\0';
}

void tp_str_append_u64(char* dst, size_t cap, uint64_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  char text[24];
  for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
  text[n] = '\0';
  tp_str_append(dst, cap, text);
}

ssize_t tp_read_file(const char* root, const char* path, char* buf, size_t len) {
  char full[TP_PATH_MAX * 2];
  full[0] = '\0';
  tp_str_append(full, sizeof full, root);
  tp_str_append(full, sizeof full, path);
  int fd = open(full, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t got = 0;
  while (got + 1 < len) {
    ssize_t n = read(fd, buf + got, len - 1 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  buf[got] = '\0';
  return (ssize_t)got;
}
