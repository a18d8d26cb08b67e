// A scripted MemorySyscalls for the residency and page-mover tests: a map of
// page address → node, per-address move results, and call-level errors.
#pragma once

#include <cerrno>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "tier/memory/memory_syscalls.hpp"

namespace tier::test {

class FakeMemorySyscalls : public MemorySyscalls {
 public:
  std::map<std::uint64_t, int> node_of;       // resident pages; others -ENOENT
  std::map<std::uint64_t, int> move_status;   // forced status when moved (e.g. -EBUSY)
  std::map<std::uint64_t, bool> leave_unset;  // move writes no status for these
  // Call number (0-based, queries and moves) → errno to fail with.
  std::map<int, int> fail_call;
  int calls = 0;
  int move_calls = 0;
  std::function<void()> on_call;  // e.g. advance a fake clock
  bool alive = true;              // process_alive() answer

  long move_pages(int, unsigned long count, void** pages, const int* nodes, int* status,
                  int) override {
    if (on_call) on_call();
    int call = calls++;
    if (auto it = fail_call.find(call); it != fail_call.end()) {
      errno = it->second;
      return -1;
    }
    if (nodes != nullptr) ++move_calls;
    long not_moved = 0;
    for (unsigned long i = 0; i < count; ++i) {
      auto address = reinterpret_cast<std::uint64_t>(pages[i]);
      auto resident = node_of.find(address);
      if (nodes == nullptr) {
        status[i] = resident == node_of.end() ? -ENOENT : resident->second;
        continue;
      }
      if (leave_unset.count(address) != 0) {
        ++not_moved;
        continue;
      }
      if (auto forced = move_status.find(address); forced != move_status.end()) {
        status[i] = forced->second;
        continue;
      }
      if (resident == node_of.end()) {
        status[i] = -ENOENT;
        continue;
      }
      resident->second = nodes[i];
      status[i] = nodes[i];
    }
    return not_moved;
  }

  bool process_alive(int) override { return alive; }
};

}  // namespace tier::test
