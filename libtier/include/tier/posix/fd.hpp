// Fd: the one owner of a POSIX file descriptor in tier.
//
// Contract: move-only; the destructor closes a valid descriptor and leaves
// errno as it was, so an error path may read errno after an Fd went out of
// scope. close() is for callers that must see close(2)'s result (a write
// error on some filesystems only shows up there); release() hands the
// descriptor to another owner (a bpf_link, an fdopen'ed stream).
#pragma once

namespace tier::posix {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  /// Gives up ownership: the caller closes the returned descriptor.
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  /// close(2) now, with its result (0, or -1 with errno set); 0 when empty.
  int close();

 private:
  int fd_ = -1;
};

}  // namespace tier::posix
