#include "heat_sources.hpp"

#include <algorithm>

namespace tierctl {

boost::json::array heat_sources_json(const std::vector<tier::heat::SourceInfo>& probes) {
  boost::json::array out;
  for (const auto& p : probes) {
    boost::json::object o{{"name", p.name},
                          {"available", p.availability.available},
                          {"reason", p.availability.reason}};
    if (!p.auto_note.empty()) o["auto_note"] = p.auto_note;
    out.push_back(std::move(o));
  }
  return out;
}

void print_heat_sources(std::ostream& out, const std::vector<tier::heat::SourceInfo>& probes) {
  std::size_t width = std::string_view("SOURCE").size();
  for (const auto& p : probes) width = std::max(width, p.name.size());
  auto pad = [](std::string_view text, std::size_t w) {
    return std::string(text) + std::string(w - text.size() + 2, ' ');
  };
  out << pad("SOURCE", width) << "AVAIL  REASON (in the order `--source auto` tries them)\n";
  for (const auto& p : probes) {
    out << pad(p.name, width) << (p.availability.available ? "yes    " : "no     ")
        << p.availability.reason << (p.auto_note.empty() ? "" : "; ") << p.auto_note << "\n";
  }
}

}  // namespace tierctl
