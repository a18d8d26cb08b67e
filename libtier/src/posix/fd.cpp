// Fd (tier/posix/fd.hpp).
#include "tier/posix/fd.hpp"

#include <unistd.h>

#include <cerrno>

namespace tier::posix {

Fd::~Fd() {
  if (fd_ < 0) return;
  // A descriptor closed while an error path unwinds must not overwrite the
  // errno that path is about to report.
  const int saved = errno;
  ::close(fd_);
  errno = saved;
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

int Fd::close() {
  if (fd_ < 0) return 0;
  return ::close(release());
}

}  // namespace tier::posix
