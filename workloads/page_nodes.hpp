// Where each page of a workload's own buffer is, cheaply: the page frame
// numbers from /proc/self/pagemap, each mapped to its node by the memory
// blocks the node owns (/sys/devices/system/node/nodeN/memoryM), instead of
// asking move_pages(2) page by page.
//
// Why: hotset's census asks every second where all of its pages are. With
// move_pages the kernel looks up every page's struct page, and under the
// emulated machine's latency model a 768 MiB census took 2.5-4 s of a vCPU
// (the struct pages of a slow node are slow too), a tax on every contender
// that rose with how much of the buffer was slow. The pagemap read walks
// only the page tables (on this host 15 ns a 4 KiB page against 50 ns).
//
// Answers are move_pages' own: the node, -ENOENT for a page not present
// (never touched, or swapped out), -EFAULT for the shared zero page. Pages
// whose frame number is not visible (pagemap shows 0 without
// CAP_SYS_ADMIN), or in a memory block that no node or two nodes list, are
// asked with move_pages after all, so an answer is never a guess.
#pragma once

#include <fcntl.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace tier_workloads {

class PageNodes {
 public:
  PageNodes() {
    pagemap_ = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    load_blocks();
    zero_pfn_ = find_zero_pfn();
  }
  ~PageNodes() {
    if (pagemap_ >= 0) ::close(pagemap_);
  }
  PageNodes(const PageNodes&) = delete;
  PageNodes& operator=(const PageNodes&) = delete;

  /// status[i] for the page at base + i * 4096, i < pages, as move_pages(0,
  /// pages, ..., NULL, status, 0) would answer; a failed query leaves
  /// -1000 - errno for its pages.
  void query(char* base, std::size_t pages, int* status) {
    std::vector<std::size_t> ask;  // pages the pagemap cannot place
    for (std::size_t i = 0; i < pages; i += kChunk) {
      const std::size_t n = std::min(kChunk, pages - i);
      if (!read_entries(base + i * kPage, n)) {
        for (std::size_t k = 0; k < n; ++k) ask.push_back(i + k);
        continue;
      }
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint64_t entry = entries_[k];
        if (!(entry & kPresent)) {
          status[i + k] = -ENOENT;
          continue;
        }
        const std::uint64_t pfn = entry & kPfnMask;
        const int node = pfn == 0 ? kUnknown : node_of(pfn);
        if (pfn != 0 && pfn == zero_pfn_) {
          status[i + k] = -EFAULT;
        } else if (node == kUnknown) {
          ask.push_back(i + k);
        } else {
          status[i + k] = node;
        }
      }
    }
    ask_kernel(base, ask, status);
  }

  /// Pages answered by move_pages so far (0 when the pagemap placed all).
  std::size_t asked_kernel() const { return asked_kernel_; }

 private:
  static constexpr std::size_t kPage = 4096, kChunk = 4096;
  static constexpr std::uint64_t kPresent = 1ull << 63;
  static constexpr std::uint64_t kPfnMask = (1ull << 55) - 1;
  static constexpr int kUnknown = -1;

  struct Range {
    std::uint64_t first = 0, end = 0;  // [first, end) frame numbers
    int node = kUnknown;               // kUnknown: listed by two nodes
  };

  bool read_entries(char* address, std::size_t n) {
    if (pagemap_ < 0 || ranges_.empty()) return false;
    entries_.resize(n);
    const off_t offset = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(address) / kPage * 8);
    const ssize_t want = static_cast<ssize_t>(n * 8);
    return ::pread(pagemap_, entries_.data(), n * 8, offset) == want;
  }

  int node_of(std::uint64_t pfn) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), pfn,
                               [](std::uint64_t p, const Range& r) { return p < r.first; });
    if (it == ranges_.begin()) return kUnknown;
    --it;
    return pfn < it->end ? it->node : kUnknown;
  }

  void ask_kernel(char* base, const std::vector<std::size_t>& ask, int* status) {
    std::vector<void*> addrs;
    std::vector<int> answers;
    for (std::size_t i = 0; i < ask.size(); i += kChunk) {
      const std::size_t n = std::min(kChunk, ask.size() - i);
      addrs.resize(n);
      answers.resize(n);
      for (std::size_t k = 0; k < n; ++k) addrs[k] = base + ask[i + k] * kPage;
      const bool ok = move_pages(0, n, addrs.data(), nullptr, answers.data(), 0) == 0;
      const int error = errno;
      for (std::size_t k = 0; k < n; ++k) status[ask[i + k]] = ok ? answers[k] : -1000 - error;
      asked_kernel_ += n;
    }
  }

  // Every memory block a node lists, as frame-number ranges; a block two
  // nodes list belongs to neither (asked with move_pages).
  void load_blocks() {
    namespace fs = std::filesystem;
    std::ifstream size_file("/sys/devices/system/memory/block_size_bytes");
    std::string hex;
    if (!(size_file >> hex)) return;
    const std::uint64_t block_pages = std::strtoull(hex.c_str(), nullptr, 16) / kPage;
    if (block_pages == 0) return;
    std::error_code ec;
    std::vector<Range> blocks;
    for (const auto& node_dir : fs::directory_iterator("/sys/devices/system/node", ec)) {
      const std::string name = node_dir.path().filename();
      if (name.rfind("node", 0) != 0 || name.size() == 4) continue;
      const int node = std::atoi(name.c_str() + 4);
      std::error_code inner;
      for (const auto& entry : fs::directory_iterator(node_dir.path(), inner)) {
        const std::string block = entry.path().filename();
        if (block.rfind("memory", 0) != 0 || block.size() == 6 ||
            block.find_first_not_of("0123456789", 6) != std::string::npos) {
          continue;
        }
        const std::uint64_t index = std::strtoull(block.c_str() + 6, nullptr, 10);
        blocks.push_back({index * block_pages, (index + 1) * block_pages, node});
      }
    }
    std::sort(blocks.begin(), blocks.end(),
              [](const Range& a, const Range& b) { return a.first < b.first; });
    for (const Range& block : blocks) {
      if (!ranges_.empty() && ranges_.back().first == block.first) {
        ranges_.back().node = kUnknown;  // the same block under two nodes
      } else if (!ranges_.empty() && ranges_.back().end == block.first &&
                 ranges_.back().node == block.node) {
        ranges_.back().end = block.end;
      } else {
        ranges_.push_back(block);
      }
    }
  }

  // The frame of the shared zero page, which a read of an untouched
  // anonymous page maps (move_pages answers -EFAULT for it); 0 if unseen.
  std::uint64_t find_zero_pfn() {
    void* page = ::mmap(nullptr, kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return 0;
    volatile char sink = *static_cast<volatile char*>(page);
    (void)sink;
    std::uint64_t pfn = 0;
    if (read_entries(static_cast<char*>(page), 1) && (entries_[0] & kPresent)) {
      pfn = entries_[0] & kPfnMask;
    }
    ::munmap(page, kPage);
    return pfn;
  }

  int pagemap_ = -1;
  std::vector<Range> ranges_;
  std::vector<std::uint64_t> entries_;
  std::uint64_t zero_pfn_ = 0;
  std::size_t asked_kernel_ = 0;
};

}  // namespace tier_workloads
