// tierctl, the front: `tierctl run` without libtier.so, everything else by
// tierctl-full.
//
// The launcher's cost is what the program loads before main(): libtier.so
// brings hwloc, libbpf, libpfm, libelf... and the shared libstdc++ relocates
// its own symbols at every start, so `tierctl run --membind 0 -- true` took
// 3.4x numactl's time (docs/benchmarks.md). This front links only libnuma,
// libc and a static libstdc++, and is the same `run` (cmd_run.cpp,
// run_options.cpp, run_exec.cpp, the tierd client) as tierctl-full's. Any
// other command line, and `run --near` (it needs the topology loader), is
// exec'd unchanged as tierctl-full, found next to this binary.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "app.hpp"

namespace {

/// True when the subcommand is `run`: the first word that is neither a
/// global option nor its value. Anything else (--help, --version, another
/// command, an unknown option) goes to tierctl-full, which knows them all.
bool is_run(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--root" || arg == "--hwloc-xml" || arg == "--socket") {
      ++i;  // its value
      continue;
    }
    if (arg.starts_with("--root=") || arg.starts_with("--hwloc-xml=") ||
        arg.starts_with("--socket=")) {
      continue;
    }
    return arg == "run";
  }
  return false;
}

/// tierctl-full in this binary's directory, given argv unchanged.
[[noreturn]] void exec_full(char** argv) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string full = "tierctl-full";
  if (length > 0) {
    const std::string_view exe(self, static_cast<std::size_t>(length));
    full = std::string(exe.substr(0, exe.rfind('/') + 1)) + full;
  }
  execv(full.c_str(), argv);
  std::fprintf(stderr, "tierctl: cannot run %s: %s\n", full.c_str(), std::strerror(errno));
  std::exit(tierctl::kFailure);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tierctl;
  if (!is_run(argc, argv)) exec_full(argv);
  GlobalOptions global;
  const std::unique_ptr<CLI::App> app = make_app(global);
  Action action;
  add_run_command(*app, global, action,
                  [argv](const GlobalOptions&) -> tier::Topology { exec_full(argv); });
  return parse_and_run(*app, global, action, argc, argv);
}
