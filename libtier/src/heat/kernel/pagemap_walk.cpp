// Reading /proc/PID/maps and /proc/PID/pagemap for the page-tracking sources
// (see pagemap_walk.hpp).
#include "pagemap_walk.hpp"

#include <fcntl.h>

#include <cerrno>

#include "kernel_io.hpp"
#include "tier/heat/page_tracking.hpp"

namespace tier::heat::kernel {

MappingsRead read_mappings(const SysRoot& root, pid_t pid,
                           const std::function<bool(const Mapping&)>& keep) {
  MappingsRead result;
  auto text = root.read(proc_path(pid, "/maps"));
  if (!text) {
    if (root.exists(proc_path(pid, ""))) {
      result.error = "cannot read " + proc_path(pid, "/maps");
    } else {
      result.gone = true;
    }
    return result;
  }
  std::vector<Mapping> all = parse_maps(*text);
  // A zombie keeps its /proc directory but has no address space left.
  if (all.empty()) {
    result.gone = true;
    return result;
  }
  for (Mapping& mapping : all) {
    if (!skip_mapping(mapping) && keep(mapping)) result.mappings.push_back(std::move(mapping));
  }
  return result;
}

bool writable_mapping(const Mapping& mapping) {
  return mapping.perms[1] == 'w';
}

bool accessible_mapping(const Mapping& mapping) {
  return mapping.perms.compare(0, 3, "---") != 0;
}

int walk_pagemap(const SysRoot& root, pid_t pid, const std::vector<Mapping>& mappings,
                 const std::function<void(std::uint64_t address, std::uint64_t entry)>& visit) {
  int error = 0;
  posix::Fd fd = open_kernel_file(root, proc_path(pid, "/pagemap"), O_RDONLY, error);
  if (!fd.valid()) return error;
  const std::uint64_t page = page_size();
  std::vector<std::uint64_t> entries(kBatchPages);
  for (const Mapping& mapping : mappings) {
    for (std::uint64_t address = mapping.start; address < mapping.end;) {
      std::uint64_t pages = std::min(kBatchPages, (mapping.end - address) / page);
      if (pages == 0) break;
      ssize_t got = pread_full(fd.get(), entries.data(), pages * pagemap::kEntryBytes,
                               address / page * pagemap::kEntryBytes);
      if (got < 0) return errno;
      std::uint64_t read_pages = static_cast<std::uint64_t>(got) / pagemap::kEntryBytes;
      for (std::uint64_t i = 0; i < read_pages; ++i) visit(address + i * page, entries[i]);
      if (read_pages < pages) break;  // end of the file: nothing more in this mapping
      address += pages * page;
    }
  }
  return 0;
}

}  // namespace tier::heat::kernel
