// state.json on disk: atomic replace (temporary file, fsync, rename, fsync of
// the directory) and a read that tells "absent" from "damaged".
#include "workloads/state_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tier/json/json_text.hpp"
#include "tier/posix/fd.hpp"

namespace tierd {

namespace {

namespace fs = std::filesystem;
using tier::posix::Fd;

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw StateFileError("cannot write state file " + path + ": " + what + ": " +
                       std::strerror(error));
}

/// mkdir -p with mode 0755 for the directories it creates.
void make_directories(const std::string& state_path, const fs::path& dir) {
  if (dir.empty()) return;
  struct stat info {};
  if (::stat(dir.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) fail(state_path, dir.string() + " is not a directory", ENOTDIR);
    return;
  }
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    make_directories(state_path, dir.parent_path());
  }
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    fail(state_path, "mkdir " + dir.string(), errno);
  }
}

void write_all(const std::string& path, int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno);
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_state_file(const std::string& path, const boost::json::value& document) {
  fs::path target(path);
  fs::path dir = target.parent_path();
  make_directories(path, dir);

  std::string text = tier::json_text(document);
  text += '\n';
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) fail(path, "create " + tmp, errno);
    try {
      // O_CREAT's mode does not apply to a leftover file of an earlier run.
      if (::fchmod(fd.get(), 0600) != 0) fail(path, "chmod " + tmp, errno);
      write_all(path, fd.get(), text);
      if (::fsync(fd.get()) != 0) fail(path, "fsync " + tmp, errno);
      // close(2) with its result: a write error may only show up here.
      if (fd.close() != 0) fail(path, "close " + tmp, errno);
      if (::rename(tmp.c_str(), path.c_str()) != 0) fail(path, "rename " + tmp, errno);
    } catch (...) {
      ::unlink(tmp.c_str());
      throw;
    }
  }
  // The rename is durable only once the directory entry is on disk.
  std::string dir_name = dir.empty() ? "." : dir.string();
  Fd dir_fd(::open(dir_name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd.valid()) fail(path, "open directory " + dir_name, errno);
  if (::fsync(dir_fd.get()) != 0 && errno != EINVAL) fail(path, "fsync " + dir_name, errno);
}

std::optional<boost::json::value> read_state_file(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::nullopt;
    throw StateFileError("cannot read state file " + path + ": " + std::strerror(errno));
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw StateFileError("cannot read state file " + path + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  // A zero-length file is what a crash between create and write on a file
  // system without ordered data leaves: say so rather than "not JSON".
  if (text.empty()) throw StateFileError("state file " + path + " is empty (0 bytes)");
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) {
    throw StateFileError("state file " + path + " is not valid JSON (" +
                         std::to_string(text.size()) + " bytes): " + ec.message());
  }
  return value;
}

}  // namespace tierd
