// How the system-call layer reports a failure: the errno, rendered the one
// way tier renders it, and a value-or-failure type for calls whose failure
// needs a sentence of context.
//
// Contract (the error rule of libtier): functions that make system calls or
// touch kernel files do not throw. They hand the errno back with the value:
// as a returned int (0 on success), an `error` field of the result struct,
// or a Result<T> whose Failure carries the errno and what failed. The domain
// layer above decides what an errno means and throws its own typed error
// (SourceError, CpusetError, ResidencyError, TopologyError ...) whose what()
// is the whole story and whose fields are what callers branch on.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace tier::posix {

/// "ENOENT (No such file or directory)": the symbolic name, which users grep
/// kernel sources for, and the description; "errno N" for an unknown value.
std::string errno_text(int error);

/// A failed call: its errno (0 when no system call failed) and the sentence
/// saying what failed ("perf_event_open(tracepoint 42): Permission denied").
struct Failure {
  int error = 0;
  std::string what;
};

/// The value of a call that worked, or the Failure of one that did not.
template <class T>
class [[nodiscard]] Result {
 public:
  // Implicit, as std::expected's are: `return fd;` and `return Failure{...};`.
  Result(T value) : value_(std::move(value)) {}
  Result(Failure failure) : failure_(std::move(failure)) {}

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  /// Only when ok().
  const T& value() const { return *value_; }
  T& value() { return *value_; }
  /// Only when !ok().
  const Failure& failure() const { return failure_; }

 private:
  std::optional<T> value_;
  Failure failure_;
};

}  // namespace tier::posix
