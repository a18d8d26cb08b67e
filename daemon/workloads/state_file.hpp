// state.json: tierd's persistent state (registered workloads, the kernel
// settings it changed and their original values, paused flag, policy), written
// atomically (temporary file in the same directory, fsync, rename, fsync of
// the directory) so a crash at any point leaves either the old or the new
// file, never a torn one.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace tierd {

struct StateFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Writes `document` (serialized, newline-terminated) to `path` atomically,
/// creating the parent directory (0755) if missing; the file is 0600. Throws
/// StateFileError naming the path and errno text.
void write_state_file(const std::string& path, const boost::json::value& document);

/// Reads and parses `path`; nullopt when it does not exist. Throws
/// StateFileError naming the path for an unreadable, empty or not-JSON file
/// (the caller keeps the file aside as PATH.bad and starts empty).
std::optional<boost::json::value> read_state_file(const std::string& path);

}  // namespace tierd
