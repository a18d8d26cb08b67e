#include "team.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "placement.hpp"

namespace tier_workloads::gups {

Team::Team(unsigned n, const tier::CpuList& cpus, const std::function<void(unsigned)>& job)
    : pinned_(n), errors_(n, 0) {
  threads_.reserve(n);
  try {
    for (unsigned i = 0; i < n; ++i) {
      threads_.emplace_back([this, &cpus, i, job] {
        if (!pin_thread(cpus, i)) errors_[i] = errno;
        pinned_.count_down();
        go_.wait(0);
        if (go_.load() > 0) job(i);
      });
    }
  } catch (...) {  // no thread for the next worker: release those started
    go_.store(-1);
    go_.notify_all();
    join();
    throw;
  }
  pinned_.wait();
  std::string failure;
  for (unsigned i = 0; i < n && failure.empty(); ++i) {
    if (errors_[i] != 0) {
      failure = "cannot pin worker " + std::to_string(i) + " to CPU " +
                std::to_string(cpus.ids()[i % cpus.size()]) + ": " + std::strerror(errors_[i]);
    }
  }
  go_.store(failure.empty() ? 1 : -1);
  go_.notify_all();
  if (!failure.empty()) {
    join();
    throw std::runtime_error(failure);
  }
}

Team::~Team() {
  join();
}

void Team::join() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void run_team(unsigned n, const tier::CpuList& cpus, const std::function<void(unsigned)>& job) {
  Team(n, cpus, job).join();
}

}  // namespace tier_workloads::gups
