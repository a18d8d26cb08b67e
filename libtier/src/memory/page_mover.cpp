// PageMover: batched, rate-limited move_pages(MPOL_MF_MOVE) with exact accounting.
#include "tier/memory/page_mover.hpp"

#include <numaif.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <string>
#include <thread>

#include "tier/memory/node_usage.hpp"

namespace tier {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// A status slot the kernel did not write (it stops early on a partial failure).
constexpr int kUnset = INT_MIN;

enum class Bucket {
  moved,
  already_there,
  busy,
  no_memory,
  not_present,
  process_gone,
  permission,
  other,
  skipped
};

std::uint64_t& slot(MoveCounts& counts, Bucket bucket) {
  switch (bucket) {
    case Bucket::moved:
      return counts.moved;
    case Bucket::already_there:
      return counts.already_there;
    case Bucket::busy:
      return counts.busy;
    case Bucket::no_memory:
      return counts.no_memory;
    case Bucket::not_present:
      return counts.not_present;
    case Bucket::process_gone:
      return counts.process_gone;
    case Bucket::permission:
      return counts.permission;
    case Bucket::other:
      return counts.other;
    case Bucket::skipped:
      break;
  }
  return counts.skipped;
}

// A negative per-page status → bucket.
Bucket bucket_for_status(int status) {
  switch (-status) {
    case EBUSY:
      return Bucket::busy;
    case ENOMEM:
      return Bucket::no_memory;
    case ENOENT:
    case EFAULT:
      return Bucket::not_present;
    case EPERM:
    case EACCES:
      return Bucket::permission;
    default:
      return Bucket::other;
  }
}

class Accounting {
 public:
  explicit Accounting(MoveReport& report) : report_(report) {}
  void add(const PageUnit& unit, Bucket bucket) {
    ++slot(report_.pages, bucket);
    slot(report_.bytes, bucket) += unit.size;
  }
  template <typename It>
  void add_all(It first, It last, Bucket bucket) {
    for (; first != last; ++first) add(*first, bucket);
  }

 private:
  MoveReport& report_;
};

}  // namespace

TokenBucket::TokenBucket(double rate_bytes_per_s, double capacity_bytes)
    : rate_(rate_bytes_per_s), capacity_(capacity_bytes) {}

double TokenBucket::consume(double bytes, double now) {
  if (last_) tokens_ = std::min(capacity_, tokens_ + (now - *last_) * rate_);
  last_ = now;
  tokens_ -= bytes;
  return tokens_ < 0 ? -tokens_ / rate_ : 0.0;
}

double TokenBucket::refill(double elapsed_s) {
  const double step = std::max(elapsed_s, 0.0);
  tokens_ = std::min(std::max(capacity_, rate_ * step), tokens_ + rate_ * step);
  return tokens_;
}

std::uint64_t MoveCounts::total() const {
  return moved + already_there + busy + no_memory + not_present + process_gone + permission +
         other + skipped + against_policy;
}

MoveCounts& MoveCounts::operator+=(const MoveCounts& more) {
  moved += more.moved;
  already_there += more.already_there;
  busy += more.busy;
  no_memory += more.no_memory;
  not_present += more.not_present;
  process_gone += more.process_gone;
  permission += more.permission;
  other += more.other;
  skipped += more.skipped;
  against_policy += more.against_policy;
  return *this;
}

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::completed:
      return "completed";
    case StopReason::cancelled:
      return "cancelled";
    case StopReason::low_free_memory:
      return "low_free_memory";
    case StopReason::process_gone:
      return "process_gone";
    case StopReason::permission:
      return "permission";
    case StopReason::error:
      return "error";
  }
  return "error";
}

namespace {

// Adds a shard's report into the total. The first shard that stopped early
// names the stop (shards are in address order).
void merge_into(MoveReport& total, const MoveReport& shard) {
  total.requested_pages += shard.requested_pages;
  total.requested_bytes += shard.requested_bytes;
  total.pages += shard.pages;
  total.bytes += shard.bytes;
  total.syscalls += shard.syscalls;
  if (total.stop_reason == StopReason::completed && shard.stop_reason != StopReason::completed) {
    total.stop_reason = shard.stop_reason;
    total.stop_detail = shard.stop_detail;
  }
  if (total.policy_detail.empty()) total.policy_detail = shard.policy_detail;
}

// The units `policy` lets onto `target`, from the first it refuses on (none
// refused: nullopt, and no copy); the others are counted in `refused` with
// the first one's reason.
std::optional<std::vector<PageUnit>> allowed_units(const std::vector<PageUnit>& units,
                                                   unsigned target,
                                                   const ProcessMemoryPolicy& policy,
                                                   MoveReport& refused) {
  auto first = std::find_if(units.begin(), units.end(), [&](const PageUnit& unit) {
    return !policy.allows(unit.address, target);
  });
  if (first == units.end()) return std::nullopt;
  refused.policy_detail = policy.refusal(first->address, target);
  std::vector<PageUnit> allowed(units.begin(), first);
  for (auto it = first; it != units.end(); ++it) {
    if (policy.allows(it->address, target)) {
      allowed.push_back(*it);
      continue;
    }
    ++refused.requested_pages;
    refused.requested_bytes += it->size;
    ++refused.pages.against_policy;
    refused.bytes.against_policy += it->size;
  }
  return allowed;
}

}  // namespace

MoveReport PageMover::move(int pid, const std::vector<PageUnit>& units, unsigned target_node,
                           const MoveOptions& options) {
  if (options.policy != nullptr) {
    MoveReport refused;
    if (auto allowed = allowed_units(units, target_node, *options.policy, refused)) {
      MoveOptions unchecked = options;
      unchecked.policy = nullptr;
      MoveReport total = move(pid, *allowed, target_node, unchecked);
      merge_into(total, refused);  // counts only: the time is the move's
      return total;
    }
  }
  // Shards moved concurrently: the kernel copies each shard's pages on the
  // calling thread, so one thread leaves memory bandwidth unused (Nimble).
  // A rate limit is one budget, so it keeps one thread.
  const std::size_t threads = options.rate_mbps ? 1 : std::max<std::size_t>(options.threads, 1);
  if (threads == 1 || units.size() < threads * kMinUnitsPerShard) {
    return move_serial(pid, units, target_node, options);
  }
  auto now = options.now ? options.now : [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  const double started = now();
  std::vector<MoveReport> reports(threads);
  {
    std::vector<std::jthread> workers;
    const std::size_t per_shard = (units.size() + threads - 1) / threads;
    for (std::size_t t = 0; t < threads; ++t) {
      const std::size_t first = std::min(units.size(), t * per_shard);
      const std::size_t last = std::min(units.size(), first + per_shard);
      workers.emplace_back([&, t, first, last] {
        std::vector<PageUnit> shard(units.begin() + static_cast<std::ptrdiff_t>(first),
                                    units.begin() + static_cast<std::ptrdiff_t>(last));
        reports[t] = move_serial(pid, shard, target_node, options);
      });
    }
  }  // jthreads join here
  MoveReport total;
  for (const auto& shard : reports) merge_into(total, shard);
  total.seconds = now() - started;
  if (total.seconds > 0) total.mbps = static_cast<double>(total.bytes.moved) / kMiB / total.seconds;
  return total;
}

MoveReport PageMover::move_serial(int pid, const std::vector<PageUnit>& units, unsigned target_node,
                                  const MoveOptions& options) {
  auto now = options.now ? options.now : [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  auto sleep = options.sleep ? options.sleep : [](double seconds) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  };

  MoveReport report;
  Accounting account(report);
  report.requested_pages = units.size();
  for (const auto& unit : units) report.requested_bytes += unit.size;
  const double started = now();
  std::optional<TokenBucket> bucket;
  if (options.rate_mbps && *options.rate_mbps > 0) {
    double rate = *options.rate_mbps * kMiB;
    bucket.emplace(rate, rate * 0.1);
  }
  std::size_t batch = std::max<std::size_t>(options.batch_pages, 1);
  if (bucket) {
    const auto per_tick = static_cast<std::size_t>(*options.rate_mbps * kMiB * 0.1 / 4096);
    batch = std::clamp<std::size_t>(per_tick, 16, batch);
  }
  const int target = static_cast<int>(target_node);

  std::vector<void*> addresses;
  std::vector<int> statuses;
  std::vector<int> nodes;
  std::vector<PageUnit> to_move;

  // A fatal errno from the call: the units from `first` on are accounted and
  // the move stops.
  auto stop_on_call_error = [&](int err, std::vector<PageUnit>::const_iterator first,
                                std::vector<PageUnit>::const_iterator batch_end,
                                const std::vector<PageUnit>* pending) {
    Bucket rest = Bucket::skipped;
    Bucket here = Bucket::other;
    // ESRCH, or any other failure of a process that is exiting (its memory
    // is already gone, so the kernel says EINVAL/EFAULT): the process left.
    const bool gone =
        err == ESRCH || (err != EPERM && err != EACCES && !syscalls_.process_alive(pid));
    if (gone) {
      report.stop_reason = StopReason::process_gone;
      here = rest = Bucket::process_gone;
    } else if (err == EPERM || err == EACCES) {
      report.stop_reason = StopReason::permission;
      here = rest = Bucket::permission;
    } else {
      report.stop_reason = StopReason::error;
      here = err == ENOMEM ? Bucket::no_memory : Bucket::other;
    }
    report.stop_detail =
        std::string(gone && err != ESRCH ? "process exited during the move; " : "") +
        "move_pages: " + std::strerror(err);
    if (pending != nullptr)
      account.add_all(pending->begin(), pending->end(), here);
    else
      account.add_all(first, batch_end, here);
    account.add_all(batch_end, units.end(), rest);
  };

  auto it = units.begin();
  while (it != units.end()) {
    if (options.cancel != nullptr && options.cancel->load()) {
      report.stop_reason = StopReason::cancelled;
      report.stop_detail = "cancelled";
      account.add_all(it, units.end(), Bucket::skipped);
      break;
    }
    auto batch_end = it + static_cast<std::ptrdiff_t>(std::min<std::size_t>(
                              batch, static_cast<std::size_t>(units.end() - it)));
    const std::size_t count = static_cast<std::size_t>(batch_end - it);

    // 1. Where are they now? Tells "already there" from "moved".
    addresses.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      addresses[i] = reinterpret_cast<void*>(it[static_cast<std::ptrdiff_t>(i)].address);
    }
    statuses.assign(count, kUnset);
    long rc = 0;
    if (std::all_of(it, batch_end, [](const PageUnit& u) { return u.node.has_value(); })) {
      for (std::size_t i = 0; i < count; ++i) {
        statuses[i] = static_cast<int>(*it[static_cast<std::ptrdiff_t>(i)].node);
      }
    } else {
      errno = 0;
      rc = syscalls_.move_pages(pid, count, addresses.data(), nullptr, statuses.data(), 0);
      ++report.syscalls;
      if (rc < 0) {
        stop_on_call_error(errno, it, batch_end, nullptr);
        break;
      }
    }
    to_move.clear();
    std::uint64_t needed = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const PageUnit& unit = it[static_cast<std::ptrdiff_t>(i)];
      int status = statuses[i];
      if (status == target) {
        account.add(unit, Bucket::already_there);
      } else if (status == kUnset) {
        to_move.push_back(unit);  // unknown: let the move say
        needed += unit.size;
      } else if (status < 0) {
        account.add(unit, bucket_for_status(status));
      } else {
        to_move.push_back(unit);
        needed += unit.size;
      }
    }
    if (to_move.empty()) {
      it = batch_end;
      continue;
    }

    // 2. Room on the target? Never push it below the floor (into reclaim):
    //    the units that still fit above it are the last ones moved (a
    //    caller planning with a slightly older free figure still gets the
    //    room there is, instead of nothing, move after move).
    bool last_batch = false;
    if (options.free_bytes) {
      if (auto free = options.free_bytes(); free && *free < options.free_floor_bytes + needed) {
        const std::uint64_t room =
            *free > options.free_floor_bytes ? *free - options.free_floor_bytes : 0;
        std::size_t fit = 0;
        std::uint64_t fitting = 0;
        while (fit < to_move.size() && fitting + to_move[fit].size <= room) {
          fitting += to_move[fit++].size;
        }
        report.stop_reason = StopReason::low_free_memory;
        report.stop_detail = "node " + std::to_string(target_node) + " free " +
                             std::to_string(*free >> 20) + " MiB, floor " +
                             std::to_string(options.free_floor_bytes >> 20) + " MiB, batch needs " +
                             std::to_string(needed >> 20) + " MiB";
        if (fit > 0) report.stop_detail += " (the " + std::to_string(fit) + " that fit moved)";
        account.add_all(to_move.begin() + static_cast<std::ptrdiff_t>(fit), to_move.end(),
                        Bucket::skipped);
        account.add_all(batch_end, units.end(), Bucket::skipped);
        if (fit == 0) break;
        to_move.resize(fit);
        needed = fitting;
        last_batch = true;
      }
    }

    // 3. Rate limit.
    if (bucket) {
      double wait = bucket->consume(static_cast<double>(needed), now());
      if (wait > 0) sleep(wait);
    }

    // 4. Move.
    const std::size_t moving = to_move.size();
    addresses.resize(moving);
    for (std::size_t i = 0; i < moving; ++i) {
      addresses[i] = reinterpret_cast<void*>(to_move[i].address);
    }
    nodes.assign(moving, target);
    statuses.assign(moving, kUnset);
    errno = 0;
    rc = syscalls_.move_pages(pid, moving, addresses.data(), nodes.data(), statuses.data(),
                              MPOL_MF_MOVE);
    ++report.syscalls;
    if (rc < 0) {
      stop_on_call_error(errno, it, batch_end, &to_move);
      break;
    }
    std::vector<std::size_t> unknown;
    for (std::size_t i = 0; i < moving; ++i) {
      int status = statuses[i];
      if (status == target) {
        account.add(to_move[i], Bucket::moved);
      } else if (status == kUnset) {
        unknown.push_back(i);
      } else if (status < 0) {
        account.add(to_move[i], bucket_for_status(status));
      } else {
        account.add(to_move[i], Bucket::busy);  // still elsewhere, no error given
      }
    }
    // 5. The kernel stops writing statuses after a partial failure (rc > 0):
    //    ask again where those pages are.
    if (!unknown.empty()) {
      addresses.resize(unknown.size());
      for (std::size_t k = 0; k < unknown.size(); ++k) {
        addresses[k] = reinterpret_cast<void*>(to_move[unknown[k]].address);
      }
      statuses.assign(unknown.size(), kUnset);
      errno = 0;
      rc = syscalls_.move_pages(pid, unknown.size(), addresses.data(), nullptr, statuses.data(), 0);
      ++report.syscalls;
      if (rc < 0) {
        int err = errno;
        std::vector<PageUnit> pending;
        for (std::size_t index : unknown) pending.push_back(to_move[index]);
        stop_on_call_error(err, batch_end, batch_end, &pending);
        break;
      }
      for (std::size_t k = 0; k < unknown.size(); ++k) {
        int status = statuses[k];
        const PageUnit& unit = to_move[unknown[k]];
        if (status == target) {
          account.add(unit, Bucket::moved);
        } else if (status < 0 && status != kUnset) {
          account.add(unit, bucket_for_status(status));
        } else {
          account.add(unit, Bucket::busy);
        }
      }
    }
    if (last_batch) break;  // the rest was accounted as skipped above
    it = batch_end;
  }

  report.seconds = now() - started;
  if (report.seconds > 0) {
    report.mbps = static_cast<double>(report.bytes.moved) / kMiB / report.seconds;
  }
  return report;
}

void watch_node_free_memory(MoveOptions& options, const SysRoot& root, unsigned node) {
  auto memory = read_node_memory(root, node);
  if (!memory) return;
  options.free_floor_bytes = default_free_floor(*memory);
  options.free_bytes = [root, node]() -> std::optional<std::uint64_t> {
    // Only meminfo: zoneinfo (the floor) is read once, above.
    auto meminfo = root.read("/sys/devices/system/node/node" + std::to_string(node) + "/meminfo");
    if (!meminfo) return std::nullopt;
    auto values = parse_node_meminfo(*meminfo);
    auto it = values.find("MemFree");
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace tier
