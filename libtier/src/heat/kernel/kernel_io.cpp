// Shared I/O of the kernel page-tracking sources (see kernel_io.hpp).
#include "kernel_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace tier::heat::kernel {

posix::Fd open_kernel_file(const SysRoot& root, std::string_view kernel_path, int flags,
                           int& error) {
  posix::Fd fd(open(root.path(kernel_path).c_str(), flags | O_CLOEXEC));
  error = fd.valid() ? 0 : errno;
  return fd;
}

int write_kernel_file(const SysRoot& root, std::string_view kernel_path, std::string_view value) {
  int error = 0;
  posix::Fd fd = open_kernel_file(root, kernel_path, O_WRONLY | O_TRUNC, error);
  if (!fd.valid()) return error;
  // sysfs and procfs take a value in one write; a partial write is a failure.
  ssize_t written = write(fd.get(), value.data(), value.size());
  if (written < 0) return errno;
  return static_cast<std::size_t>(written) == value.size() ? 0 : EIO;
}

ssize_t pread_full(int fd, void* buffer, std::size_t bytes, std::uint64_t offset) {
  auto* out = static_cast<char*>(buffer);
  std::size_t done = 0;
  while (done < bytes) {
    ssize_t n = pread(fd, out + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

bool process_gone(int error) {
  return error == ESRCH || error == ENOENT;
}

std::string proc_path(pid_t pid, std::string_view leaf) {
  return "/proc/" + std::to_string(pid) + std::string(leaf);
}

std::uint64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(now.tv_nsec);
}

std::uint64_t page_size() {
  static const auto size = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace tier::heat::kernel
