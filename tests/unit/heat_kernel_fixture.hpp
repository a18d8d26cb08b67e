// Fixture trees for the kernel page-tracking source tests: a TempDir that
// stands for "/", with the sysfs and procfs files the kernel would have.
// Paths and bit positions are written out here from the kernel documentation
// (not taken from the library), so a wrong path or bit in the sources fails
// the tests instead of agreeing with itself.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "test_support.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::test {

inline constexpr std::uint64_t kPage = 4096;
inline constexpr std::uint64_t kPresentBit = std::uint64_t{1} << 63;
inline constexpr std::uint64_t kSwappedBit = std::uint64_t{1} << 62;
inline constexpr std::uint64_t kSoftDirtyBit = std::uint64_t{1} << 55;

class KernelTree {
 public:
  KernelTree() : root_(dir_.path()) {}

  const SysRoot& root() const { return root_; }
  fs::path path(const std::string& kernel_path) const {
    return dir_.path() / kernel_path.substr(1);
  }

  KernelTree& file(const std::string& kernel_path, const std::string& text) {
    write_text_file(path(kernel_path), text);
    return *this;
  }
  std::string read(const std::string& kernel_path) const {
    return read_text_file(path(kernel_path));
  }
  bool exists(const std::string& kernel_path) const { return fs::exists(path(kernel_path)); }
  void remove(const std::string& kernel_path) const { fs::remove_all(path(kernel_path)); }

  /// Every regular file under the root with its contents: "nothing written" checks.
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir_.path())) {
      if (entry.is_regular_file()) {
        files[entry.path().lexically_relative(dir_.path()).string()] = read_text_file(entry.path());
      }
    }
    return files;
  }

  /// One 8-byte pagemap entry for the page at `address` of /proc/PID/pagemap.
  void pagemap_entry(int pid, std::uint64_t address, std::uint64_t entry) {
    word_at(path("/proc/" + std::to_string(pid) + "/pagemap"), address / kPage * 8, entry);
  }

  /// Writes / reads one 8-byte little-endian word at `offset` of a binary file.
  static void word_at(const fs::path& file, std::uint64_t offset, std::uint64_t value) {
    if (!fs::exists(file)) write_text_file(file, "");
    std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(offset));
    out.write(reinterpret_cast<const char*>(&value), sizeof value);
  }
  static std::uint64_t word_of(const fs::path& file, std::uint64_t offset) {
    std::ifstream in(file, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    std::uint64_t value = 0;
    in.read(reinterpret_cast<char*>(&value), sizeof value);
    return value;
  }

 private:
  TempDir dir_{"tier-heat-kernel"};
  SysRoot root_;
};

}  // namespace tier::test
