// LibbpfLog: collects libbpf's warnings while a load/attach runs, so errors
// can name the real cause ("failed to determine tracepoint ...") instead of a
// bare errno, and keeps libbpf quiet on stderr meanwhile.
//
// libbpf's print callback is process-wide: the previous callback is restored
// on destruction (nesting works). Not meant for concurrent loads from several threads.
#pragma once

#include <bpf/libbpf.h>

#include <string>

namespace tier::heat::bpf {

class LibbpfLog {
 public:
  LibbpfLog();
  ~LibbpfLog();
  LibbpfLog(const LibbpfLog&) = delete;
  LibbpfLog& operator=(const LibbpfLog&) = delete;

  /// The last warning libbpf printed since construction or clear(); "" if none.
  std::string last_warning() const;
  void clear();

 private:
  libbpf_print_fn_t previous_;
};

}  // namespace tier::heat::bpf
