// Per-CPU busy fractions from /proc/stat (cpu_usage.hpp).
#include "tier/cpu/cpu_usage.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

namespace tier::cpu {

namespace {

bool starts_with_cpu_id(std::string_view line) {
  return line.size() > 3 && line.substr(0, 3) == "cpu" && line[3] >= '0' && line[3] <= '9';
}

// Splits on spaces; /proc/stat separates its fields with single spaces but
// tolerate runs of them.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < line.size()) {
    const std::size_t start = line.find_first_not_of(" \t", pos);
    if (start == std::string_view::npos) break;
    std::size_t end = line.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = line.size();
    out.push_back(line.substr(start, end - start));
    pos = end;
  }
  return out;
}

template <typename T>
bool parse_number(std::string_view text, T& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

CpuTimes parse_cpu_line(std::string_view line) {
  const auto bad = [&] {
    return std::invalid_argument("malformed /proc/stat line: '" + std::string(line) + "'");
  };
  const std::vector<std::string_view> fields = fields_of(line);
  // cpuN user nice system idle [iowait irq softirq steal guest guest_nice]:
  // kernels since 2.6.33 print all ten, older ones fewer.
  if (fields.size() < 5) throw bad();
  CpuTimes t;
  if (!parse_number(fields[0].substr(3), t.cpu)) throw bad();
  std::uint64_t* slots[] = {&t.user,   &t.nice, &t.system,  &t.idle,
                            &t.iowait, &t.irq,  &t.softirq, &t.steal};
  const std::size_t counters = std::min<std::size_t>(fields.size() - 1, std::size(slots));
  for (std::size_t i = 0; i < counters; ++i) {
    if (!parse_number(fields[i + 1], *slots[i])) throw bad();
  }
  for (std::size_t i = 1 + counters; i < fields.size(); ++i) {
    std::uint64_t ignored = 0;  // guest, guest_nice: checked, not used
    if (!parse_number(fields[i], ignored)) throw bad();
  }
  return t;
}

}  // namespace

const CpuTimes* CpuStat::find(unsigned cpu) const {
  auto it = std::lower_bound(cpus.begin(), cpus.end(), cpu,
                             [](const CpuTimes& t, unsigned id) { return t.cpu < id; });
  return it != cpus.end() && it->cpu == cpu ? &*it : nullptr;
}

CpuStat parse_proc_stat(std::string_view text) {
  CpuStat stat;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    if (starts_with_cpu_id(line)) stat.cpus.push_back(parse_cpu_line(line));
    pos = end + 1;
  }
  std::sort(stat.cpus.begin(), stat.cpus.end(),
            [](const CpuTimes& a, const CpuTimes& b) { return a.cpu < b.cpu; });
  return stat;
}

std::optional<CpuStat> read_proc_stat(const SysRoot& root) {
  std::optional<std::string> text = root.read("/proc/stat");
  if (!text) return std::nullopt;
  return parse_proc_stat(*text);
}

namespace {

struct Delta {
  std::uint64_t busy = 0, total = 0;
};

// Field by field, a counter that went backwards counts as zero: the
// kernel's per-CPU iowait can decrease on NO_HZ kernels (see the iowait note
// in Documentation/filesystems/proc.rst).
std::uint64_t forward(std::uint64_t before, std::uint64_t after) {
  return after > before ? after - before : 0;
}

Delta delta_of(const CpuTimes& b, const CpuTimes& a) {
  Delta d;
  d.busy = forward(b.user, a.user) + forward(b.nice, a.nice) + forward(b.system, a.system) +
           forward(b.irq, a.irq) + forward(b.softirq, a.softirq) + forward(b.steal, a.steal);
  d.total = d.busy + forward(b.idle, a.idle) + forward(b.iowait, a.iowait);
  return d;
}

std::optional<Delta> delta_of(const CpuStat& before, const CpuStat& after, unsigned cpu) {
  const CpuTimes* b = before.find(cpu);
  const CpuTimes* a = after.find(cpu);
  if (b == nullptr || a == nullptr) return std::nullopt;
  return delta_of(*b, *a);
}

double fraction(const Delta& d) {
  return d.total == 0 ? 0.0 : static_cast<double>(d.busy) / static_cast<double>(d.total);
}

}  // namespace

std::map<unsigned, double> busy_fractions(const CpuStat& before, const CpuStat& after) {
  std::map<unsigned, double> out;
  for (const CpuTimes& a : after.cpus) {
    if (auto d = delta_of(before, after, a.cpu)) out[a.cpu] = fraction(*d);
  }
  return out;
}

std::optional<double> busy_fraction(const CpuStat& before, const CpuStat& after,
                                    const CpuList& cpus) {
  Delta sum;
  bool any = false;
  for (unsigned cpu : cpus.ids()) {
    if (auto d = delta_of(before, after, cpu)) {
      sum.busy += d->busy;
      sum.total += d->total;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return fraction(sum);
}

std::optional<double> CpuUsageSampler::sample(const CpuList& cpus) {
  std::optional<CpuStat> now = read_proc_stat(root_);
  if (!now) return std::nullopt;
  std::optional<double> fraction;
  if (previous_) fraction = busy_fraction(*previous_, *now, cpus);
  previous_ = std::move(now);
  return fraction;
}

}  // namespace tier::cpu
