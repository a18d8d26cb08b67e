// Helpers shared by the topology, shared-topology and CLI tests: scratch
// directories, running external programs (tar, tierctl) without a shell, and
// scoped environment variables. Header-only so each test binary stays a
// single source file in tests/CMakeLists.txt.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace tier::test {

namespace fs = std::filesystem;

/// Where scratch trees go: $TMPDIR when set, else tmpfs (/dev/shm), else
/// /tmp. Unpacking a gathered sysfs tarball writes thousands of tiny files;
/// on the build VM's disk that is ~25x slower than on tmpfs (13 s vs 0.5 s
/// for fakepcilocalities).
inline fs::path scratch_base() {
  if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir != '\0') {
    return tmpdir;
  }
  std::error_code ec;
  if (fs::is_directory("/dev/shm", ec) && access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path();
}

/// A fresh directory under $TMPDIR (or /tmp), removed with its contents on
/// destruction, so tests never leave unpacked trees behind.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "tier-test") {
    fs::path base = scratch_base() / (prefix + "-XXXXXX");
    std::string pattern = base.string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(errno));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (fs::remove_all(path_, ec) != static_cast<std::uintmax_t>(-1) && !ec) return;
    // Copies of read-only trees (the shared topologies are r--r--r--) need
    // write permission on their directories before they can be emptied.
    for (fs::recursive_directory_iterator it(path_, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_symlink(ec)) {
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
      }
    }
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline std::string read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// A "Key:\tvalue" line of a /proc status file (/proc/PID/status,
/// /proc/PID/task/TID/status): the value, or "<no Key>" when absent.
inline std::string proc_status_field(const fs::path& status, const std::string& key) {
  std::ifstream in(status);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      auto value = line.substr(key.size() + 1);
      const auto start = value.find_first_not_of(" \t");
      return start == std::string::npos ? "" : value.substr(start);
    }
  }
  return "<no " + key + ">";
}

inline void write_text_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << text;
}

struct CommandResult {
  int exit_code = -1;  // exit status, or 128+signal when killed
  std::string out;
  std::string err;
};

/// A program started in the background (argv[0] looked up in $PATH, no
/// shell), stdout/stderr captured through files (no pipe deadlock on large
/// output). wait() reaps it; the destructor kills and reaps one still running.
class Process {
 public:
  explicit Process(const std::vector<std::string>& argv) : io_("tier-cmd") {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path().c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path().c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    int rc = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(rc));
  }
  ~Process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int signo) const { ::kill(pid_, signo); }
  /// Current stdout so far (the program may still be writing).
  std::string out_so_far() const { return read_text_file(out_path()); }
  /// Current stderr so far.
  std::string err_so_far() const { return read_text_file(err_path()); }

  CommandResult wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
      if (errno != EINTR) throw std::runtime_error("waitpid: " + std::string(std::strerror(errno)));
    }
    pid_ = -1;
    CommandResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = read_text_file(out_path());
    result.err = read_text_file(err_path());
    return result;
  }

 private:
  std::string out_path() const { return (io_.path() / "stdout").string(); }
  std::string err_path() const { return (io_.path() / "stderr").string(); }
  TempDir io_;
  pid_t pid_ = -1;
};

/// Runs a program to completion (see Process).
inline CommandResult run_command(const std::vector<std::string>& argv) {
  return Process(argv).wait();
}

/// Unpacks a .tar.bz2 into `dest`; throws with tar's message on failure.
inline void unpack_tarball(const fs::path& tarball, const fs::path& dest,
                           const std::optional<fs::path>& exclude_from = std::nullopt) {
  std::vector<std::string> argv{"tar", "xjf", tarball.string(), "-C", dest.string()};
  if (exclude_from) argv.push_back("--exclude-from=" + exclude_from->string());
  CommandResult result = run_command(argv);
  if (result.exit_code != 0) {
    throw std::runtime_error("tar xjf " + tarball.string() + " failed: " + result.err);
  }
}

/// Copies a fixture tree (keeping its relative symlinks as symlinks) so a
/// test can damage the copy: remove HMAT, distances, meminfo, ...
inline void copy_tree(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

/// Sets (or unsets, with nullopt) an environment variable for a scope and
/// restores the previous value afterwards.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) previous_ = old;
    if (value) {
      setenv(name_.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (previous_) {
      setenv(name_.c_str(), previous_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

/// "a-b+c" → "a_b_c": GoogleTest parameter names allow only [A-Za-z0-9_].
inline std::string test_name_from(const std::string& text) {
  std::string name;
  for (char c : text) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

/// True in the ASan build (`make asan`). Some live tests must know: ASan's
/// shadow memory adds page faults of its own (one shadow page per eight
/// pages touched), and its multi-TiB shadow reservation is so large that the
/// NUMA balancing scanner, which walks a bounded amount of virtual address
/// space per period, takes minutes to reach a test's buffer.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// Sets a /proc/sys integer for a scope and writes the old value back, so a
// test that needs e.g. kernel.numa_balancing on leaves the host as it was.
// Tests that use one hold the CTest RESOURCE_LOCK of that sysctl (see
// tier_unit_test(... LOCKS ...)), so parallel tests never see each other's value.
class ScopedSysctl {
 public:
  ScopedSysctl(std::string path, long value) : path_(std::move(path)) {
    std::ifstream in(path_);
    in >> old_;
    ok_ = static_cast<bool>(in) && write(value);
  }
  ~ScopedSysctl() {
    if (ok_) write(old_);
  }
  ScopedSysctl(const ScopedSysctl&) = delete;
  ScopedSysctl& operator=(const ScopedSysctl&) = delete;
  bool ok() const { return ok_; }

 private:
  bool write(long value) const {
    std::ofstream out(path_);
    out << value << "\n";
    out.flush();
    return static_cast<bool>(out);
  }
  std::string path_;
  long old_ = 0;
  bool ok_ = false;
};

}  // namespace tier::test
