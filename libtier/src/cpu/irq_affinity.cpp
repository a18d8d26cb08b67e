// IRQ isolation through /proc/irq (irq_affinity.hpp).
#include "tier/cpu/irq_affinity.hpp"
#include "tier/posix/error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <iterator>

namespace tier::cpu {

namespace {

constexpr const char* kDefaultAffinity = "/proc/irq/default_smp_affinity";

std::string affinity_path(unsigned irq) {
  return "/proc/irq/" + std::to_string(irq) + "/smp_affinity_list";
}

CpuList minus(const CpuList& from, const CpuList& remove) {
  std::vector<unsigned> out;
  std::set_difference(from.ids().begin(), from.ids().end(), remove.ids().begin(),
                      remove.ids().end(), std::back_inserter(out));
  return CpuList(std::move(out));
}

// EIO: the kernel will not let user space move this IRQ (managed, per-CPU
// or chained); EINVAL: the mask is not acceptable for it (e.g. none of its
// CPUs online for this interrupt controller).
std::string refusal_reason(int error) {
  if (error == EIO || error == EINVAL) {
    return "kernel refused (" + posix::errno_text(error) + "): managed or per-CPU IRQ";
  }
  return "write failed: " + posix::errno_text(error);
}

}  // namespace

int write_proc_file(const std::filesystem::path& file, const std::string& value) {
  // O_TRUNC as `echo >` does: procfs ignores it, a fixture file needs it.
  const int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t written = ::write(fd, value.data(), value.size());
  int error = 0;
  if (written < 0) {
    error = errno;
  } else if (static_cast<std::size_t>(written) != value.size()) {
    error = EIO;  // the proc handlers take a list in one write or not at all
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  return error;
}

std::string to_mask(const CpuList& cpus) {
  if (cpus.empty()) return "0";
  std::vector<std::uint32_t> words(cpus.ids().back() / 32 + 1, 0);
  for (unsigned id : cpus.ids()) words[id / 32] |= std::uint32_t{1} << (id % 32);
  std::string out;
  for (auto it = words.rbegin(); it != words.rend(); ++it) {
    char word[9];
    std::snprintf(word, sizeof word, "%08x", *it);
    if (!out.empty()) out += ',';
    out += word;
  }
  return out;
}

IrqIsolation::IrqIsolation(SysRoot root, IrqWriter writer)
    : root_(std::move(root)), writer_(std::move(writer)) {}

IrqReport IrqIsolation::isolate(const CpuList& cpus) {
  IrqReport report;
  for (unsigned irq : numbered_entries(root_, "/proc/irq", "")) {
    const std::string path = affinity_path(irq);
    if (!root_.exists(path)) continue;
    const std::optional<std::string> text = root_.read(path);
    const std::optional<CpuList> current = text ? CpuList::parse(*text) : std::nullopt;
    if (!current) {
      report.skipped.push_back(
          {irq, {}, text ? "malformed smp_affinity_list '" + *text + "'" : "unreadable"});
      continue;
    }
    const auto saved = originals_.find(irq);
    const CpuList original = saved != originals_.end() ? saved->second : *current;
    CpuList wanted = minus(original, cpus);
    if (wanted.empty()) {
      report.skipped.push_back({irq, *current,
                                "would leave no CPU (affinity " + original.to_string() +
                                    " lies within " + cpus.to_string() + ")"});
      wanted = original;
    }
    if (wanted == *current) {
      if (wanted == original) originals_.erase(irq);
      continue;
    }
    if (const int error = writer_(root_.path(path), wanted.to_string()); error != 0) {
      report.skipped.push_back({irq, *current, refusal_reason(error)});
      continue;
    }
    if (wanted == original) {
      report.restored.push_back({irq, *current, wanted});
      originals_.erase(irq);
    } else {
      report.moved.push_back({irq, *current, wanted});
      originals_.emplace(irq, original);
    }
  }

  // New IRQs start from default_smp_affinity: narrow it too, so a device
  // probed later does not land on an exclusive core.
  if (!root_.exists(kDefaultAffinity)) return report;
  const std::optional<std::string> text = root_.read(kDefaultAffinity);
  const std::optional<std::string>& original_text = original_default_ ? original_default_ : text;
  const std::optional<CpuList> original =
      original_text ? CpuList::parse_mask(*original_text) : std::nullopt;
  const std::optional<CpuList> current = text ? CpuList::parse_mask(*text) : std::nullopt;
  if (!original || !current) {
    report.default_affinity_error = text ? "malformed mask '" + *text + "'" : "unreadable";
    return report;
  }
  const CpuList wanted = minus(*original, cpus);
  if (wanted.empty()) {
    report.default_affinity_error = "would leave no CPU";
  } else if (wanted != *current) {
    if (const int error = writer_(root_.path(kDefaultAffinity), to_mask(wanted)); error != 0) {
      report.default_affinity_error = refusal_reason(error);
      return report;
    }
    report.default_affinity = IrqMove{0, *current, wanted};
    if (!original_default_) original_default_ = text;
  }
  return report;
}

void IrqIsolation::restore() noexcept {
  try {
    restore_failures_.clear();
    for (const auto& [irq, original] : originals_) {
      if (const int error = writer_(root_.path(affinity_path(irq)), original.to_string())) {
        restore_failures_.push_back({irq, original, refusal_reason(error)});
      }
    }
    originals_.clear();
    if (original_default_) {
      if (const int error = writer_(root_.path(kDefaultAffinity), *original_default_)) {
        restore_failures_.push_back({0, {}, "default_smp_affinity: " + refusal_reason(error)});
      }
      original_default_.reset();
    }
  } catch (...) {
    // Out of memory while building a message: nothing sensible is left to do
    // in a destructor path; the originals that were written stay written.
  }
}

}  // namespace tier::cpu
