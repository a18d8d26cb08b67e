// Which workloads' residency tierd reads, and how much of a core that may
// take. A residency scan asks the kernel for the node of every page of a
// workload (tier::scan_residency): about 30 ms for 768 MiB on a server, but
// seconds in the emulated machine under the latency model, and minutes of CPU
// an hour for a fleet server's thousands of processes if every one were read
// every epoch. So the scans share a duty cycle (ScanDuty: a credit of scan
// time that accrues at a fixed share of wall time), and tierd's own moves
// update a workload's figures in place (shift_residency) instead of asking
// for a new scan; the kernel's moves show at the workload's next scan.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tierd {

/// The share of one core residency scans may use on average, and how much
/// unused credit carries over (seconds of scan time).
inline constexpr double kResidencyDuty = 0.01;
inline constexpr double kResidencyCreditCap = 0.5;

/// A credit of scan time: accrue() adds `duty` seconds per second of wall
/// time since the last call, up to `cap`; spend() takes what a scan took and
/// may leave it negative (one long scan is paid back over the following
/// epochs). Starts full, so the first scans are not held back. Not
/// thread-safe: one owner (the scanner's batch) at a time.
class ScanDuty {
 public:
  ScanDuty(double duty, double cap_s);
  void accrue(double now_s);
  void spend(double seconds) { credit_s_ -= seconds; }
  bool may_scan() const { return credit_s_ > 0; }
  double credit_s() const { return credit_s_; }

 private:
  double duty_;
  double cap_s_;
  double credit_s_;
  double last_s_ = -1;
};

/// One workload in the order the scanner should read them.
struct ResidencyTurn {
  std::string workload_id;
  bool always = false;  // read even without credit: never read yet, or wanted every epoch
};

/// The order of this epoch's scans: workloads without figures first (new),
/// then those wanted fresh every epoch (`every_epoch`: online workloads
/// whose fast share offline suppression's triggers read), both read
/// whatever the credit; then those whose figures tierd could not update in
/// place (`stale`), then the rest, longest unread first (`scanned_at`:
/// steady seconds of each workload's last scan; ties keep the registry's
/// order).
std::vector<ResidencyTurn> residency_order(
    const std::vector<std::string>& workload_ids,
    const std::map<std::string, std::map<unsigned, std::uint64_t>>& residency,
    const std::map<std::string, double>& scanned_at, const std::set<std::string>& stale,
    const std::set<std::string>& every_epoch);

/// A move of `moved` bytes from node `from` to node `to` applied to a
/// workload's bytes per node: at most what `from` holds leaves it.
void shift_residency(std::map<unsigned, std::uint64_t>& bytes_by_node, unsigned from, unsigned to,
                     std::uint64_t moved);

}  // namespace tierd
