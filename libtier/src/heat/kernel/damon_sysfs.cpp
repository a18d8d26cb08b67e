// Setting up a monitoring-only kdamond through DAMON sysfs (see damon_sysfs.hpp).
#include "damon_sysfs.hpp"

#include <limits>
#include <sstream>

#include "kernel_io.hpp"
#include "posix/text_scan.hpp"
#include "tier/posix/error.hpp"

namespace tier::heat::kernel {

namespace {

// The kernel keeps sz bounds as unsigned long and nr_accesses/age bounds as
// unsigned int (struct damos_access_pattern); the sysfs files take decimal.
const std::string kMaxUlong = std::to_string(std::numeric_limits<unsigned long>::max());
const std::string kMaxUint = std::to_string(std::numeric_limits<unsigned int>::max());

bool lists_word(const std::string& text, std::string_view word) {
  std::istringstream words(text);
  std::string each;
  while (words >> each) {
    if (each == word) return true;
  }
  return false;
}

void require_vaddr(const SysRoot& root, unsigned index) {
  std::string path = kdamond_path(index, "/contexts/0/avail_operations");
  auto avail = root.read(path);
  // Kernels before 5.19 lack the file; the write of `operations` then decides.
  if (!avail || lists_word(*avail, "vaddr")) return;
  std::string listed = *avail;
  for (char& c : listed) {
    if (c == '\n') c = ' ';
  }
  throw SourceError("damon: this kernel has no DAMON vaddr operations (" + path +
                    " lists: " + listed + ")");
}

}  // namespace

std::string kdamond_path(unsigned index, std::string_view leaf) {
  return std::string(kDamonAdmin) + "/kdamonds/" + std::to_string(index) + std::string(leaf);
}

void write_or_throw(const SysRoot& root, const std::string& kernel_path, std::string_view value) {
  if (int error = write_kernel_file(root, kernel_path, value); error != 0) {
    throw SourceError("damon: writing '" + std::string(value) + "' to " + kernel_path +
                      " failed: " + posix::errno_text(error));
  }
}

void configure_kdamond(const SysRoot& root, unsigned index, pid_t pid,
                       const DamonSettings& settings) {
  auto write = [&](std::string_view leaf, const std::string& value) {
    write_or_throw(root, kdamond_path(index, leaf), value);
  };
  write("/contexts/nr_contexts", "1");
  require_vaddr(root, index);
  write("/contexts/0/operations", "vaddr");

  const std::string attrs = "/contexts/0/monitoring_attrs";
  write(attrs + "/intervals/sample_us", std::to_string(settings.sample_us));
  write(attrs + "/intervals/aggr_us", std::to_string(settings.aggr_us));
  write(attrs + "/intervals/update_us", std::to_string(settings.update_us));
  write(attrs + "/nr_regions/min", std::to_string(settings.min_nr_regions));
  write(attrs + "/nr_regions/max", std::to_string(settings.max_nr_regions));

  write("/contexts/0/targets/nr_targets", "1");
  write("/contexts/0/targets/0/pid_target", std::to_string(pid));

  const std::string scheme = "/contexts/0/schemes/0";
  write("/contexts/0/schemes/nr_schemes", "1");
  write(scheme + "/action", "stat");
  write(scheme + "/access_pattern/sz/min", "0");
  write(scheme + "/access_pattern/sz/max", kMaxUlong);
  write(scheme + "/access_pattern/nr_accesses/min", "0");
  write(scheme + "/access_pattern/nr_accesses/max", kMaxUint);
  write(scheme + "/access_pattern/age/min", "0");
  write(scheme + "/access_pattern/age/max", kMaxUint);
}

std::vector<TriedRegion> read_tried_regions(const SysRoot& root, unsigned index,
                                            std::uint64_t& unreadable) {
  const std::string dir = kdamond_path(index, "/contexts/0/schemes/0/tried_regions");
  std::vector<TriedRegion> regions;
  for (unsigned n : numbered_entries(root, dir, "")) {
    const std::string region = dir + "/" + std::to_string(n);
    auto number = [&](std::string_view leaf) -> std::optional<std::uint64_t> {
      auto text = root.read(region + std::string(leaf));
      return text ? text::parse_u64(*text) : std::nullopt;
    };
    auto start = number("/start");
    auto end = number("/end");
    auto accesses = number("/nr_accesses");
    if (!start || !end || !accesses || *end <= *start) {
      ++unreadable;
      continue;
    }
    regions.push_back({*start, *end, static_cast<std::uint32_t>(*accesses)});
  }
  return regions;
}

}  // namespace tier::heat::kernel
