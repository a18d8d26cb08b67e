#include "node_resolver.hpp"

#include <algorithm>
#include <unordered_map>

namespace tier::heat {

namespace {
constexpr std::uint64_t kPageMask = ~std::uint64_t{4095};
constexpr std::size_t kBatch = 16384;  // entries per move_pages call
}  // namespace

std::vector<int> NodeResolver::query(int pid, const std::vector<std::uint64_t>& addresses) {
  std::vector<int> status(addresses.size(), -1);
  std::vector<void*> pages(kBatch);
  for (std::size_t done = 0; done < addresses.size(); done += kBatch) {
    const std::size_t n = std::min(kBatch, addresses.size() - done);
    for (std::size_t i = 0; i < n; ++i) {
      pages[i] = reinterpret_cast<void*>(static_cast<std::uintptr_t>(addresses[done + i]));
    }
    if (syscalls_.move_pages(pid, n, pages.data(), nullptr, status.data() + done, 0) < 0) {
      return {};
    }
  }
  return status;
}

std::uint64_t NodeResolver::resolve(int pid, std::vector<AccessSample>& samples) {
  std::unordered_map<std::uint64_t, int> node_of;
  std::vector<std::uint64_t> wanted;
  for (const auto& s : samples) {
    if (s.node >= 0 || s.pid != static_cast<std::uint32_t>(pid)) continue;
    const std::uint64_t page = s.addr & kPageMask;
    if (wanted.size() < max_pages_ && node_of.emplace(page, -1).second) wanted.push_back(page);
  }
  if (!wanted.empty()) {
    const auto status = query(pid, wanted);
    for (std::size_t i = 0; i < status.size(); ++i) node_of[wanted[i]] = status[i];
  }
  std::uint64_t unresolved = 0;
  for (auto& s : samples) {
    if (s.node >= 0 || s.pid != static_cast<std::uint32_t>(pid)) continue;
    auto it = node_of.find(s.addr & kPageMask);
    if (it != node_of.end() && it->second >= 0) {
      s.node = it->second;
    } else {
      ++unresolved;
    }
  }
  return unresolved;
}

}  // namespace tier::heat
