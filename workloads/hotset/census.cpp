#include "census.hpp"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "../own_residency.hpp"

namespace hotset {
namespace {

constexpr std::uint8_t kMoved = 1, kPingPong = 2;

double mono_s() {
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::map<int, std::size_t> free_above_high(const std::string& zoneinfo) {
  std::map<int, long long> free, high;
  std::istringstream in(zoneinfo);
  std::string line;
  int node = -1;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string w0, w1;
    words >> w0;
    if (w0 == "Node") {
      words >> w1;  // "N,"
      node = std::atoi(w1.c_str());
      continue;
    }
    if (node < 0) continue;
    long long v = 0;
    if (w0 == "pages") {
      words >> w1 >> v;
      if (w1 == "free") free[node] += v;
    } else if (w0 == "high" && (words >> v)) {
      high[node] += v;
    }
  }
  std::map<int, std::size_t> out;
  for (const auto& [n, f] : free) {
    long long above = f - high[n];
    out[n] = above > 0 ? static_cast<std::size_t>(above) : 0;
  }
  return out;
}

Census::Census(char* base, const Options& o, const Layout& layout)
    : base_(base), o_(o), layout_(layout) {
  const std::size_t pages = layout.pages(), hot = layout.hot_pages();
  weight_.resize(hot);
  prefix_.assign(hot + 1, 0.0);
  for (std::size_t r = 0; r < hot; ++r) {
    weight_[r] = o.zipf ? 1.0 / std::pow(static_cast<double>(r + 1), o.theta) : 1.0;
    prefix_[r + 1] = prefix_[r] + weight_[r];
  }
  status_.resize(pages);
  last_.assign(pages, -1);
  seen_.assign(pages, 0);
  flags_.assign(pages, 0);
  for (int n : o.fast_nodes) fast_mask_ |= 1ull << n;
  file_ = std::fopen(o.census.c_str(), "a");
  if (file_ == nullptr) {
    std::fprintf(stderr, "hotset: --census %s: %s\n", o.census.c_str(), std::strerror(errno));
  }
}

Census::~Census() {
  if (file_ != nullptr) std::fclose(file_);
}

bool Census::take(double t_s, unsigned phase, std::size_t limit, std::uint64_t scans, bool last) {
  const double began = mono_s();
  const std::size_t pages = layout_.pages(), hot = layout_.hot_pages();
  limit = std::min(limit, hot);
  page_nodes_.query(base_, pages, status_.data());
  const double queried = mono_s();

  std::map<int, std::size_t> nodes;
  std::size_t fast_pages = 0;
  double hit = 0;
  const std::size_t first = layout_.start_page(phase);
  for (std::size_t p = 0; p < pages; ++p) {
    const int s = status_[p];
    ++nodes[s];
    if (s < 0 || s >= 64) continue;  // not present (yet), or a query error
    const bool fast = (fast_mask_ >> s) & 1;
    if (fast) {
      ++fast_pages;
      std::size_t index = (p + pages - first) % pages;  // rank in this phase's hot set
      if (index < limit) hit += weight_[index];
    }
    const int before = last_[p];
    if (before != s) {
      if (before >= 0) {
        ++moves_;
        if (!(flags_[p] & kMoved)) ++moved_pages_, flags_[p] |= kMoved;
        const bool was_fast = (fast_mask_ >> before) & 1;
        if (was_fast && !fast) ++demoted_;
        if (!was_fast && fast) ++promoted_;
        if (((seen_[p] >> s) & 1) && !(flags_[p] & kPingPong)) {
          ++pingpong_;
          flags_[p] |= kPingPong;
        }
      }
      seen_[p] |= 1ull << s;
      last_[p] = static_cast<std::int16_t>(s);
    }
  }
  std::size_t fast_free = 0;
  const auto free = free_above_high(read_file("/proc/zoneinfo"));
  for (int n : o_.fast_nodes) {
    auto it = free.find(n);
    if (it != free.end()) fast_free += it->second;
  }
  const std::size_t capacity = fast_pages + fast_free;
  const double total = prefix_[limit];
  const double share = total > 0 ? hit / total : 0;
  const double oracle = total > 0 ? prefix_[std::min(capacity, limit)] / total : 0;
  // Only with --scan-every: without it the line keeps its historical members.
  const std::string scanned =
      o_.scan_every_s > 0 ? ",\"scans\":" + std::to_string(scans) : std::string();
  std::fprintf(file_,
               "{\"t_s\":%.3f,\"mono_s\":%.3f,\"query_s\":%.3f,\"phase\":%u,\"hot_pages\":%zu,"
               "\"share\":%.5f,\"oracle\":%.5f,\"capacity_pages\":%zu,\"fast_pages\":%zu,"
               "\"fast_free_pages\":%zu,\"nodes\":%s,\"moves\":%zu,\"moved_pages\":%zu,"
               "\"promoted\":%zu,\"demoted\":%zu,\"pingpong_pages\":%zu%s,\"final\":%s}\n",
               t_s, began, queried - began, phase, limit, share, oracle, capacity, fast_pages,
               fast_free, tier_workloads::node_counts_json(nodes).c_str(), moves_, moved_pages_,
               promoted_, demoted_, pingpong_, scanned.c_str(), last ? "true" : "false");
  if (std::fflush(file_) != 0) {
    std::fprintf(stderr, "hotset: writing the census: %s\n", std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace hotset
