// The three phases of tier-kv that talk to the server:
//   load     before the ready line: every connection SETs version 0 of the
//            keys it owns, in id order (so the keys' allocations in the
//            server follow the ids, not their popularity), a batch per round
//            trip
//   run      the measured part: each connection in a closed loop, one request
//            outstanding, GET (any key) or SET (a key of its own, next
//            version), every reply checked (keyspace.hpp says which versions
//            a GET may find), every request's latency recorded
//   verify   after the workers stopped: GET every key, a batch per round
//            trip; each must be exactly its last version
// Failures talking to the server throw KvError (connection.hpp); the worker
// catches its own and ends with error() set, naming what it was doing.
// Wrong data is counted, never thrown: the first few wrong values are also
// described on stderr.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "connection.hpp"
#include "keyspace.hpp"
#include "latency_histogram.hpp"

namespace tier_kv {

/// Commands per round trip: `pipeline`, fewer for big values so a batch
/// holds at most about 1 MiB of values.
unsigned batch_size(unsigned pipeline, std::size_t value_size);

/// SETs version 0 of the keys `owner` writes, `batch` per round trip;
/// every reply must be +OK (else KvError naming the key).
void load_keys(Connection& c, const Keyspace& ks, unsigned owner, std::size_t value_size,
               unsigned batch);

class Worker {
 public:
  Worker(unsigned index, Keyspace& ks, std::size_t value_size, double write_fraction,
         std::uint64_t seed);

  /// Requests until `stop` is set or the server fails (error() then says
  /// how).
  void run(Connection& c, const std::atomic<bool>& stop);
  /// Adds this interval's latencies to `into` and starts the next interval
  /// (safe while run() runs).
  void take_interval(tier_workloads::LatencyHistogram& into);

  // After run() returned:
  const tier_workloads::LatencyHistogram& latency() const { return total_; }
  std::uint64_t gets() const { return gets_; }
  std::uint64_t sets() const { return sets_; }
  std::uint64_t bad() const { return bad_; }
  /// Empty when the run ended by `stop`.
  const std::string& error() const { return error_; }
  /// The key whose SET was cut off by a failure: the server holds either
  /// its published version or the one before.
  std::optional<std::uint32_t> in_doubt() const { return in_doubt_; }

 private:
  unsigned index_;
  Keyspace& ks_;
  std::size_t value_size_;
  double write_fraction_;
  std::uint64_t seed_;
  std::mutex interval_mutex_;
  tier_workloads::LatencyHistogram interval_, total_;
  std::uint64_t gets_ = 0, sets_ = 0, bad_ = 0;
  std::string error_;
  std::optional<std::uint32_t> in_doubt_;
};

struct Verification {
  std::uint64_t keys = 0, bytes = 0, bad = 0;  // keys and bytes checked, keys wrong
};

/// GETs every key, `batch` per round trip, into `out` as it goes (a failure
/// part way throws KvError and leaves what was checked in `out`). Each key
/// must hold exactly its published version; the keys in `in_doubt` that or
/// the one before.
void verify_all(Connection& c, const Keyspace& ks, std::size_t value_size, unsigned batch,
                const std::vector<std::uint32_t>& in_doubt, Verification& out);

}  // namespace tier_kv
