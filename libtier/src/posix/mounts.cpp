// Mount table parsing (mounts.hpp).
#include "posix/mounts.hpp"

#include <sstream>

namespace tier::posix {

namespace {

// The kernel escapes space, tab, newline and backslash in paths as \ooo.
std::string unescape(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '7') {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

std::vector<std::string> fields(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string field;
  while (in >> field) out.push_back(field);
  return out;
}

template <typename LineFn>
std::vector<Mount> parse_lines(std::string_view text, LineFn parse_line) {
  std::vector<Mount> mounts;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (auto mount = parse_line(fields(line)); !mount.fstype.empty()) {
      mounts.push_back(std::move(mount));
    }
  }
  return mounts;
}

}  // namespace

std::vector<Mount> parse_mountinfo(std::string_view text) {
  // id parent major:minor root mount_point options [optional...] - fstype source super_options
  return parse_lines(text, [](const std::vector<std::string>& f) {
    Mount mount;
    std::size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 1 >= f.size()) return mount;  // no separator or no fstype
    mount.mount_point = unescape(f[4]);
    mount.fstype = f[dash + 1];
    mount.options = dash + 3 < f.size() ? f[dash + 3] : "";
    return mount;
  });
}

std::vector<Mount> parse_proc_mounts(std::string_view text) {
  // source mount_point fstype options dump pass
  return parse_lines(text, [](const std::vector<std::string>& f) {
    Mount mount;
    if (f.size() < 4) return mount;
    mount.mount_point = unescape(f[1]);
    mount.fstype = f[2];
    mount.options = f[3];
    return mount;
  });
}

std::vector<Mount> read_mounts(const SysRoot& root) {
  if (auto text = root.read("/proc/self/mountinfo")) return parse_mountinfo(*text);
  if (auto text = root.read("/proc/mounts")) return parse_proc_mounts(*text);
  return {};
}

bool has_option(std::string_view options, std::string_view option) {
  while (!options.empty()) {
    auto comma = options.find(',');
    if (options.substr(0, comma) == option) return true;
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace tier::posix
