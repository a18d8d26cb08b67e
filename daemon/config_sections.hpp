// The sections of tierd's configuration ([daemon], [metrics], ... as
// docs/configuration.md lists them), each read by its own function in
// config_sections.cpp; parse_config (config.cpp) hands them the parsed file.
#pragma once

#include <toml++/toml.h>
#include <string>

#include "config.hpp"
#include "config_reader.hpp"

namespace tierd::detail {

/// Reads every section of `root` into `config` (keys absent keep its
/// values); throws ConfigError naming origin:line and the key.
void read_sections(const toml::table& root, const ParseContext& context, Config& config);

}  // namespace tierd::detail
