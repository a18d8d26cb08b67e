// hotset's census (--census FILE): where every page of its own buffer is,
// read every --census-ms from its page tables (page_nodes.hpp: the pagemap's
// frame numbers and the nodes' memory blocks; move_pages(2) for what those
// cannot place), scored from the
// workload's side against the access distribution it really draws from:
//   share   sum over pages of P(access hits the page) x [page on a fast node]
//   oracle  the best share the same fast capacity allows: capacity = this
//           process's pages on fast nodes now + the fast nodes' free pages
//           above their high watermark (/proc/zoneinfo), filled with the
//           most probable pages
// plus pages per node, pages that changed node, fast <-> slow moves and
// ping-pong pages (back on a node they had left), and with --scan-every the
// scans finished so far. One JSON line per census, appended and flushed, so
// a reader sees every finished line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "../page_nodes.hpp"
#include "access.hpp"
#include "options.hpp"

namespace hotset {

// Free pages above the high watermark per node, summed over the node's
// zones, from a /proc/zoneinfo text ("Node N, zone Z" ... "pages free F" ...
// "high H"); nodes with free <= high count 0.
std::map<int, std::size_t> free_above_high(const std::string& zoneinfo);

class Census {
 public:
  Census(char* base, const Options& o, const Layout& layout);
  ~Census();
  Census(const Census&) = delete;
  Census& operator=(const Census&) = delete;
  bool ok() const { return file_ != nullptr; }
  // One census at t_s seconds from the start of the accesses: the current
  // phase, and `limit` hot-set pages accessible (all of them unless growing);
  // with --scan-every the line also says how many scans were finished.
  // The last one, after the accesses stopped, says "final":true. False (with
  // a message) if the line cannot be written.
  bool take(double t_s, unsigned phase, std::size_t limit, std::uint64_t scans, bool last = false);

 private:
  char* base_;
  const Options& o_;
  const Layout& layout_;
  std::FILE* file_ = nullptr;
  std::vector<double> weight_;  // rank r's unnormalised access weight
  std::vector<double> prefix_;  // prefix_[k] = sum of the k largest weights
  tier_workloads::PageNodes page_nodes_;
  std::vector<int> status_;          // move_pages' answers, one per page
  std::vector<std::int16_t> last_;   // last node seen per page, -1: never placed
  std::vector<std::uint64_t> seen_;  // nodes (< 64) a page has been on
  std::vector<std::uint8_t> flags_;  // kMoved, kPingPong
  std::uint64_t fast_mask_ = 0;
  std::size_t moves_ = 0, moved_pages_ = 0, promoted_ = 0, demoted_ = 0, pingpong_ = 0;
};

}  // namespace hotset
